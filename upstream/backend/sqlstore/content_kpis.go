package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// favorites sets Favorite on groups from the caller's favourites.
func favorites(ctx context.Context, q querier, c upstream.Caller, gs []upstream.KPIGroup) error {
	if len(gs) == 0 {
		return nil
	}
	ids := make([]string, len(gs))
	for i, g := range gs {
		ids[i] = g.ID
	}
	rows, err := q.QueryContext(ctx, "SELECT group_id FROM kpi_favorites WHERE account_id = ? AND user_id = ? AND group_id IN (SELECT value FROM json_each(?))",
		c.AccountID, c.UserID, idsParam(ids))
	if err != nil {
		return fmt.Errorf("sqlstore: load favourites: %w", err)
	}
	defer rows.Close()
	fav := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("sqlstore: load favourites: %w", err)
		}
		fav[id] = true
	}
	for i := range gs {
		gs[i].Favorite = fav[gs[i].ID]
	}
	return rows.Err()
}

// ListKPIGroups lists KPI groups with the caller's favourites marked.
func (s *Store) ListKPIGroups(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.KPIGroup], error) {
	return listPage(ctx, s, listing[upstream.KPIGroup]{action: upstream.KPIsRead, table: kpiGroups,
		then: func(ctx context.Context, q querier, c upstream.Caller, items []upstream.KPIGroup, _ upstream.ListQuery) ([]upstream.KPIGroup, error) {
			return items, favorites(ctx, q, c, items)
		}}, lq)
}

// GetKPIGroup returns one KPI group.
func (s *Store) GetKPIGroup(ctx context.Context, id string) (upstream.KPIGroup, error) {
	q, c, err := s.readAs(ctx, upstream.KPIsRead)
	if err != nil {
		return upstream.KPIGroup{}, err
	}
	return getKPIGroup(ctx, q, c, id)
}

func getKPIGroup(ctx context.Context, q querier, c upstream.Caller, id string) (upstream.KPIGroup, error) {
	g, err := kpiGroups.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.KPIGroup{}, err
	}
	gs := []upstream.KPIGroup{g}
	if err := favorites(ctx, q, c, gs); err != nil {
		return upstream.KPIGroup{}, err
	}
	return gs[0], nil
}

// CreateKPIGroup creates a KPI group.
func (s *Store) CreateKPIGroup(ctx context.Context, in upstream.KPIGroupInput) (upstream.KPIGroup, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.KPIGroup{}, err
	}
	now := s.timestamp()
	g := upstream.KPIGroup{ID: s.ids.New(), AccountID: c.AccountID, CreatedByID: c.UserID, ModifiedByID: c.UserID, DateCreated: now, DateUpdated: now}
	if g.Name, err = checkText("name", in.Name, true, 200); err != nil {
		return upstream.KPIGroup{}, err
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.KPIsManage, nil); err != nil {
			return err
		}
		return kpiGroups.insert(ctx, q, c.AccountID, &g)
	})
	if err != nil {
		return upstream.KPIGroup{}, err
	}
	return g, nil
}

// UpdateKPIGroup renames a KPI group.
func (s *Store) UpdateKPIGroup(ctx context.Context, id string, in upstream.KPIGroupInput) (upstream.KPIGroup, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.KPIGroup{}, err
	}
	name, err := checkText("name", in.Name, true, 200)
	if err != nil {
		return upstream.KPIGroup{}, err
	}
	var g upstream.KPIGroup
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.KPIsManage, nil); err != nil {
			return err
		}
		if g, err = getKPIGroup(ctx, q, c, id); err != nil {
			return err
		}
		g.Name, g.ModifiedByID, g.DateUpdated = name, c.UserID, s.timestamp()
		fav := g.Favorite
		g.Favorite = false
		if err := kpiGroups.update(ctx, q, c.AccountID, &g); err != nil {
			return err
		}
		g.Favorite = fav
		return nil
	})
	if err != nil {
		return upstream.KPIGroup{}, err
	}
	return g, nil
}

// DeleteKPIGroup deletes a group, its favourites and its memberships.
func (s *Store) DeleteKPIGroup(ctx context.Context, id string) error {
	return s.writeAsCaller(ctx, upstream.KPIsManage, func(q querier, c upstream.Caller) error {
		if _, err := kpiGroups.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		held, err := kpis.where(ctx, q, c.AccountID, "EXISTS (SELECT 1 FROM "+dialectOf(q).each("doc", "g", "groupIds")+" WHERE g.value = ?)", id)
		if err != nil {
			return err
		}
		for _, k := range held {
			k.GroupIDs = slices.DeleteFunc(k.GroupIDs, func(x string) bool { return x == id })
			if err := kpis.update(ctx, q, c.AccountID, &k); err != nil {
				return err
			}
		}
		if _, err := q.ExecContext(ctx, "DELETE FROM kpi_favorites WHERE account_id = ? AND group_id = ?", c.AccountID, id); err != nil {
			return fmt.Errorf("sqlstore: delete favourites: %w", err)
		}
		return kpiGroups.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}

// SetKPIGroupFavorite adds or removes a group from the caller's favourites.
func (s *Store) SetKPIGroupFavorite(ctx context.Context, groupID string, favorite bool) error {
	return s.writeAsCaller(ctx, upstream.KPIsRead, func(q querier, c upstream.Caller) error {
		if _, err := kpiGroups.get(ctx, q, c.AccountID, groupID); err != nil {
			return err
		}
		stmt := "DELETE FROM kpi_favorites WHERE account_id = ? AND user_id = ? AND group_id = ?"
		if favorite {
			stmt = "INSERT INTO kpi_favorites (account_id, user_id, group_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
		}
		if _, err := q.ExecContext(ctx, stmt, c.AccountID, c.UserID, groupID); err != nil {
			return fmt.Errorf("sqlstore: favourite: %w", err)
		}
		return nil
	})
}

// SetKPIInGroup adds a KPI to a group or removes it.
func (s *Store) SetKPIInGroup(ctx context.Context, kpiID, groupID string, member bool) error {
	return s.writeAsCaller(ctx, upstream.KPIsManage, func(q querier, c upstream.Caller) error {
		k, err := kpis.get(ctx, q, c.AccountID, kpiID)
		if err != nil {
			return err
		}
		if _, err := kpiGroups.get(ctx, q, c.AccountID, groupID); err != nil {
			return err
		}
		has := slices.Contains(k.GroupIDs, groupID)
		switch {
		case member && !has:
			k.GroupIDs = append(k.GroupIDs, groupID)
		case !member && has:
			k.GroupIDs = slices.DeleteFunc(k.GroupIDs, func(x string) bool { return x == groupID })
		default:
			return nil
		}
		k.DateUpdated = s.timestamp()
		return kpis.update(ctx, q, c.AccountID, &k)
	})
}

// ListKPIs lists KPIs.
func (s *Store) ListKPIs(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.KPI], error) {
	return listPage(ctx, s, listing[upstream.KPI]{action: upstream.KPIsRead, table: kpis}, lq)
}

// GetKPI returns one KPI.
func (s *Store) GetKPI(ctx context.Context, id string) (upstream.KPI, error) {
	q, c, err := s.readAs(ctx, upstream.KPIsRead)
	if err != nil {
		return upstream.KPI{}, err
	}
	return kpis.get(ctx, q, c.AccountID, id)
}

// checkKPI validates a KPI about to be written against the account.
func checkKPI(ctx context.Context, q querier, account string, k *upstream.KPI) error {
	var err error
	if k.Name, err = checkText("name", k.Name, true, maxName); err != nil {
		return err
	}
	if len(k.Description) > 20000 {
		return upstream.Invalid("description", "must be at most 20000 characters")
	}
	if err := upstream.CheckNumber("value", k.Value); err != nil {
		return err
	}
	if ok, err := userExists(ctx, q, account, k.OwnerID); err != nil {
		return err
	} else if !ok {
		return upstream.Invalid("ownerId", "no user %q", k.OwnerID)
	}
	if k.GroupIDs, err = checkIDs("groupIds", k.GroupIDs); err != nil {
		return err
	}
	found, err := kpiGroups.in(ctx, q, account, "id", k.GroupIDs)
	if err != nil {
		return err
	}
	if len(found) != len(k.GroupIDs) {
		for i, id := range k.GroupIDs {
			if !slices.ContainsFunc(found, func(g upstream.KPIGroup) bool { return g.ID == id }) {
				return upstream.Invalid(fmt.Sprintf("groupIds[%d]", i), "no KPI group %q", id)
			}
		}
	}
	return nil
}

// CreateKPI creates a KPI, in the groups it names.
func (s *Store) CreateKPI(ctx context.Context, in upstream.KPIInput) (upstream.KPI, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.KPI{}, err
	}
	now := s.timestamp()
	k := upstream.KPI{ID: s.ids.New(), AccountID: c.AccountID, Name: in.Name, Description: in.Description,
		Value: in.Value, OwnerID: in.OwnerID, GroupIDs: in.GroupIDs, DateCreated: now, DateUpdated: now}
	if k.OwnerID == "" {
		k.OwnerID = c.UserID
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.KPIsManage, nil); err != nil {
			return err
		}
		if err := checkKPI(ctx, q, c.AccountID, &k); err != nil {
			return err
		}
		return kpis.insert(ctx, q, c.AccountID, &k)
	})
	if err != nil {
		return upstream.KPI{}, err
	}
	return k, nil
}

// UpdateKPI changes a KPI.
func (s *Store) UpdateKPI(ctx context.Context, id string, p upstream.KPIPatch) (upstream.KPI, error) {
	var k upstream.KPI
	return writeAs(ctx, s, upstream.KPIsManage, &k, func(q querier, c upstream.Caller) error {
		var err error
		if k, err = kpis.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if p.Name != nil {
			k.Name = *p.Name
		}
		if p.Description != nil {
			k.Description = *p.Description
		}
		if p.Value != nil {
			k.Value = *p.Value
		}
		if p.OwnerID != nil {
			k.OwnerID = *p.OwnerID
		}
		k.DateUpdated = s.timestamp()
		if err := checkKPI(ctx, q, c.AccountID, &k); err != nil {
			return err
		}
		return kpis.update(ctx, q, c.AccountID, &k)
	})
}

// DeleteKPI deletes a KPI (and so its group memberships).
func (s *Store) DeleteKPI(ctx context.Context, id string) error {
	return deleteByID(ctx, s, kpis, upstream.KPIsManage, id)
}
