package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// tagByName returns the tag of account with the given identity, creating it
// (active, titled title) on first use.
func (s *Store) tagByName(ctx context.Context, q querier, c upstream.Caller, title string) (upstream.Tag, error) {
	name := upstream.TagName(title)
	if name == "" {
		return upstream.Tag{}, upstream.Invalid("title", "must not be empty")
	}
	if len(name) > 200 {
		return upstream.Tag{}, upstream.Invalid("title", "must be at most 200 characters")
	}
	var raw []byte
	err := q.QueryRowContext(ctx, "SELECT doc FROM tags WHERE account_id = ? AND name = ?", c.AccountID, name).Scan(&raw)
	if err == nil {
		var t upstream.Tag
		if err := json.Unmarshal(raw, &t); err != nil {
			return upstream.Tag{}, fmt.Errorf("sqlstore: decode tag: %w", err)
		}
		return t, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return upstream.Tag{}, fmt.Errorf("sqlstore: find tag: %w", err)
	}
	t := upstream.Tag{ID: s.ids.New(), Name: name, Title: strings.TrimSpace(title), IsActive: true,
		CreatedBy: c.UserID, DateCreated: s.timestamp()}
	doc, _ := json.Marshal(t)
	if _, err := q.ExecContext(ctx, "INSERT INTO tags (id, account_id, name, doc) VALUES (?, ?, ?, ?)", t.ID, c.AccountID, name, string(doc)); err != nil {
		return upstream.Tag{}, fmt.Errorf("sqlstore: insert tag: %w", err)
	}
	return t, nil
}

// tagItem puts the tag named by title on an item. added is false when the
// item already had it.
func (s *Store) tagItem(ctx context.Context, q querier, c upstream.Caller, itemID, itemType, title string) (upstream.Tag, bool, error) {
	t, err := s.tagByName(ctx, q, c, title)
	if err != nil {
		return upstream.Tag{}, false, err
	}
	res, err := q.ExecContext(ctx, "INSERT INTO item_tags (account_id, tag_id, item_id, item_type, added) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
		c.AccountID, t.ID, itemID, itemType, s.timestamp())
	if err != nil {
		return upstream.Tag{}, false, fmt.Errorf("sqlstore: tag item: %w", err)
	}
	n, _ := res.RowsAffected()
	return t, n > 0, nil
}

// AddGoalTag tags a goal, creating the tag on first use. Tagging is not a
// structural edit, so it is allowed unless the session is closed.
func (s *Store) AddGoalTag(ctx context.Context, goalID, title string) (upstream.Tag, bool, error) {
	return s.addTag(ctx, goalID, upstream.TaggedGoal, title, func(q querier, c upstream.Caller) error {
		g, err := goals.get(ctx, q, c.AccountID, goalID)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.GoalsUpdate, upstream.GoalItem(g)); err != nil {
			return err
		}
		ss, err := sessions.get(ctx, q, c.AccountID, g.SessionID)
		if err != nil {
			return err
		}
		return upstream.SessionGate(ss, upstream.Progress)
	})
}

// addTag tags an item in one transaction after allow, which finds the item
// and checks the caller may tag it, has passed.
func (s *Store) addTag(ctx context.Context, itemID, itemType, title string, allow func(querier, upstream.Caller) error) (upstream.Tag, bool, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Tag{}, false, err
	}
	var t upstream.Tag
	var added bool
	err = s.tx(ctx, func(q querier) error {
		if err := allow(q, c); err != nil {
			return err
		}
		t, added, err = s.tagItem(ctx, q, c, itemID, itemType, title)
		return err
	})
	return t, added, err
}
