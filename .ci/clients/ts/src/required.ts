// Compile-time checks on the types openapi-typescript generated from
// /api/openapi.json: inputs require what the server requires, and outputs
// declare the fields every full answer carries as present (not optional).
import type { components, paths } from './generated/openapi.js';

type Schemas = components['schemas'];

/** true when K is a required (non-optional) key of T. */
type IsRequired<T, K extends keyof T> = {} extends Pick<T, K> ? false : true;

// MetricInput requires name, goalId and target.
export const metricInput: Schemas['MetricInput'] = { name: 'New ARR', goalId: '6b038d1307d8eca68027b2dd', target: 500 };
// @ts-expect-error goalId and target are missing
export const metricInputIncomplete: Schemas['MetricInput'] = { name: 'New ARR' };
export const goalNameRequired: IsRequired<Schemas['GoalInput'], 'sessionId'> = true;
export const checkInActualRequired: IsRequired<Schemas['CheckInInput'], 'actual'> = true;
export const checkInCommentOptional: IsRequired<Schemas['CheckInInput'], 'comment'> = false;

// Outputs: always-present fields are required.
export const goalAttainment: IsRequired<Schemas['Goal'], 'attainment'> = true;
export const metricGoalId: IsRequired<Schemas['Metric'], 'goalId'> = true;
export const checkInActual: IsRequired<Schemas['CheckIn'], 'actual'> = true;
export const pageTotal: IsRequired<Schemas['Page_Goal'], 'totalCount'> = true;
export const problemCode: IsRequired<Schemas['Problem'], 'code'> = true;

// A fields= projection answers only id, accountId and the fields named: the
// projected schema requires nothing else, so a projected read is partial.
export const metricProjectionId: IsRequired<Schemas['MetricProjection'], 'id'> = true;
export const metricProjectionPartial: IsRequired<Schemas['MetricProjection'], 'goalId'> = false;
// GET /api/v1/metrics/{id} takes fields=: the generated type of its answer
// may lack goalId (a whole Metric, or a MetricProjection).
type MetricRead = paths['/api/v1/metrics/{id}']['get']['responses'][200]['content']['application/json'];
export const metricReadPartial: undefined extends MetricRead['goalId'] ? true : false = true;
