package sqlstore

// postgresVisibility is the visibility SQL on PostgreSQL (see
// visibilitySQL): the same conditions as sqliteVisibility over JSONB, where
// a flag is set as SQLite's json_extract reads it: true or a non-zero number
// (an access entry's deny map holds numbers, {"goals:read": 1}).
var postgresVisibility = visibilitySQL{
	goal: `((P.session_id IN (SELECT value FROM json_each(?)) OR P.doc #> '{access,inherits}' IN ('false'::jsonb, '0'::jsonb))
		AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(P.doc #> '{access,permissions}') = 'array'
				THEN P.doc #> '{access,permissions}' END) AS ap(value)
			WHERE ap.value ->> 'principalId' IN (SELECT value FROM json_each(?))
			AND (COALESCE(ap.value #> '{deny,goals:read}' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE)
				OR COALESCE(ap.value #> '{deny,*}' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE)))
		AND (NOT COALESCE(P.doc -> 'private' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE)
			OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(P.doc -> 'ownerIds') = 'array'
				THEN P.doc -> 'ownerIds' END) AS o(value) WHERE o.value IN (SELECT value FROM json_each(?)))
			OR P.session_id IN (SELECT value FROM json_each(?))))`,
	metricOwn: `(NOT COALESCE(P.doc -> 'private' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE)
			OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(P.doc -> 'ownerIds') = 'array'
				THEN P.doc -> 'ownerIds' END) AS o(value) WHERE o.value IN (SELECT value FROM json_each(?)))
			OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(P.doc -> 'goalOwnerIds') = 'array'
				THEN P.doc -> 'goalOwnerIds' END) AS o(value) WHERE o.value IN (SELECT value FROM json_each(?)))
			OR P.session_id IN (SELECT value FROM json_each(?)))`,
	stubDoc: `jsonb_build_object('id', id, 'accountId', account_id, 'sessionId', session_id, 'parentId', parent_id,
	'parentType', doc -> 'parentType', 'parentGoalSessionId', doc -> 'parentGoalSessionId',
	'private', true, 'obfuscated', true, 'ownerIds', '[]'::jsonb, 'watchers', '[]'::jsonb,
	'closedStatus', jsonb_build_object('status', '', 'reason', ''))`,
	noParentName: `jsonb_set(doc, '{parentName}', '""'::jsonb)`,
}
