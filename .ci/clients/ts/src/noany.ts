// Compile-time checks on the generated operation types: the session tree
// query's result type must contain no `any` at any depth. tsc --strict fails
// on this file otherwise.
import type { SessionTreeQuery } from './generated/graphql.js';

/** true when T is `any`. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/** true when T is or contains `any` (arrays, objects, unions). */
export type HasAny<T> =
  IsAny<T> extends true
    ? true
    : T extends readonly (infer U)[]
      ? HasAny<U>
      : T extends object
        ? true extends { [K in keyof T]-?: HasAny<T[K]> }[keyof T]
          ? true
          : false
        : false;

/** Compiles only when HasAny<T> is false. */
type AssertNoAny<T> = HasAny<T> extends false ? true : never;

export const sessionTreeHasNoAny: AssertNoAny<SessionTreeQuery> = true;

// The check itself works: a type with a nested any is caught.
type Nested = { a: { b: Array<{ c: any }> } };
// @ts-expect-error Nested contains any
export const nestedHasAny: AssertNoAny<Nested> = true;
