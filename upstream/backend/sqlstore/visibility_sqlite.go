package sqlstore

// sqliteVisibility is the visibility SQL on SQLite (see visibilitySQL).
var sqliteVisibility = visibilitySQL{
	goal: `((P.session_id IN (SELECT value FROM json_each(?)) OR json_extract(P.doc, '$.access.inherits') = 0)
		AND NOT EXISTS (SELECT 1 FROM json_each(P.doc, '$.access.permissions') ap
			WHERE json_extract(ap.value, '$.principalId') IN (SELECT value FROM json_each(?))
			AND (COALESCE(json_extract(ap.value, '$.deny."goals:read"'), 0) <> 0 OR COALESCE(json_extract(ap.value, '$.deny."*"'), 0) <> 0))
		AND (COALESCE(json_extract(P.doc, '$.private'), 0) = 0
			OR EXISTS (SELECT 1 FROM json_each(P.doc, '$.ownerIds') o WHERE o.value IN (SELECT value FROM json_each(?)))
			OR P.session_id IN (SELECT value FROM json_each(?))))`,
	metricOwn: `(COALESCE(json_extract(P.doc, '$.private'), 0) = 0
			OR EXISTS (SELECT 1 FROM json_each(P.doc, '$.ownerIds') o WHERE o.value IN (SELECT value FROM json_each(?)))
			OR EXISTS (SELECT 1 FROM json_each(P.doc, '$.goalOwnerIds') o WHERE o.value IN (SELECT value FROM json_each(?)))
			OR P.session_id IN (SELECT value FROM json_each(?)))`,
	stubDoc: `json_object('id', id, 'accountId', account_id, 'sessionId', session_id, 'parentId', parent_id,
	'parentType', json_extract(doc, '$.parentType'), 'parentGoalSessionId', json_extract(doc, '$.parentGoalSessionId'),
	'private', json('true'), 'obfuscated', json('true'), 'ownerIds', json('[]'), 'watchers', json('[]'),
	'closedStatus', json_object('status', '', 'reason', ''))`,
	noParentName: `json_set(doc, '$.parentName', '')`,
	unindexed:    "+",
}
