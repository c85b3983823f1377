package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// Dashboard parameters.

// ListDashboardParameters lists the account's dashboard parameters.
func (s *Store) ListDashboardParameters(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.DashboardParameter], error) {
	return listPage(ctx, s, listing[upstream.DashboardParameter]{action: upstream.DashboardsRead, table: dashboardParams}, lq)
}

// GetDashboardParameter returns one dashboard parameter.
func (s *Store) GetDashboardParameter(ctx context.Context, id string) (upstream.DashboardParameter, error) {
	q, c, err := s.readAs(ctx, upstream.DashboardsRead)
	if err != nil {
		return upstream.DashboardParameter{}, err
	}
	return dashboardParams.get(ctx, q, c.AccountID, id)
}

// CreateDashboardParameter creates a parameter with a key unique in the account.
func (s *Store) CreateDashboardParameter(ctx context.Context, in upstream.DashboardParameterInput) (upstream.DashboardParameter, error) {
	p, err := checkParameter(in)
	if err != nil {
		return upstream.DashboardParameter{}, err
	}
	p.ID = s.ids.New()
	return writeAs(ctx, s, upstream.DashboardsAdmin, &p, func(q querier, c upstream.Caller) error {
		if err := uniqueKey(ctx, q, c.AccountID, p.Key, ""); err != nil {
			return err
		}
		return dashboardParams.insert(ctx, q, c.AccountID, &p)
	})
}

// ReplaceDashboardParameter replaces a parameter's fields.
func (s *Store) ReplaceDashboardParameter(ctx context.Context, id string, in upstream.DashboardParameterInput) (upstream.DashboardParameter, error) {
	p, err := checkParameter(in)
	if err != nil {
		return upstream.DashboardParameter{}, err
	}
	p.ID = id
	return writeAs(ctx, s, upstream.DashboardsAdmin, &p, func(q querier, c upstream.Caller) error {
		if _, err := dashboardParams.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if err := uniqueKey(ctx, q, c.AccountID, p.Key, id); err != nil {
			return err
		}
		return dashboardParams.update(ctx, q, c.AccountID, &p)
	})
}

// DeleteDashboardParameter deletes a parameter and takes it off dashboards.
func (s *Store) DeleteDashboardParameter(ctx context.Context, id string) error {
	return s.writeAsCaller(ctx, upstream.DashboardsAdmin, func(q querier, c upstream.Caller) error {
		if _, err := dashboardParams.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		using, err := dashboards.where(ctx, q, c.AccountID, "EXISTS (SELECT 1 FROM "+dialectOf(q).each("doc", "p", "parameterIds")+" WHERE p.value = ?)", id)
		if err != nil {
			return err
		}
		for _, d := range using {
			d.ParameterIDs = slices.DeleteFunc(d.ParameterIDs, func(x string) bool { return x == id })
			if err := dashboards.update(ctx, q, c.AccountID, &d); err != nil {
				return err
			}
		}
		return dashboardParams.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}

func checkParameter(in upstream.DashboardParameterInput) (upstream.DashboardParameter, error) {
	p := upstream.DashboardParameter{DefaultValue: in.DefaultValue, EntityName: in.EntityName,
		EntityTitleField: in.EntityTitleField, EntityValueField: in.EntityValueField,
		PredefinedValues: nonNil(in.PredefinedValues), SelectorType: in.SelectorType}
	var err error
	if p.Key, err = checkText("key", in.Key, true, 100); err != nil {
		return p, err
	}
	if p.Title, err = checkText("title", in.Title, true, maxName); err != nil {
		return p, err
	}
	if p.SelectorType == "" {
		p.SelectorType = upstream.SelectorTypes[0]
	}
	if !slices.Contains(upstream.SelectorTypes, p.SelectorType) {
		return p, upstream.Invalid("selectorType", "%q is not a selector type; use one of %v", p.SelectorType, upstream.SelectorTypes)
	}
	if len(p.PredefinedValues) > 1000 {
		return p, upstream.Invalid("predefinedValues", "at most 1000 values")
	}
	return p, nil
}

// uniqueKey refuses a parameter key another parameter (not except) has.
func uniqueKey(ctx context.Context, q querier, account, key, except string) error {
	var n int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM dashboard_parameters WHERE account_id = ? AND key = ? AND id != ?", account, key, except).Scan(&n); err != nil {
		return fmt.Errorf("sqlstore: check parameter key: %w", err)
	}
	if n > 0 {
		return upstream.Invalid("key", "another dashboard parameter has the key %q", key)
	}
	return nil
}
