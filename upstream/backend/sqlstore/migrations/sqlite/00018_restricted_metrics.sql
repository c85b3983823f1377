-- +goose Up
-- The restricted key results of an account, for the ids a restricted
-- caller may not see (scope.go, hiddenSQL): without it, finding the few
-- read every key result's entry of metrics_account_id once per request.
CREATE INDEX metrics_account_restricted ON metrics(account_id, id) WHERE restricted = 1;

-- +goose Down
DROP INDEX metrics_account_restricted;
