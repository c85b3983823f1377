package sqlstore

import (
	"context"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

func validTaskStatus(s string) bool {
	return s == upstream.TaskTodo || s == upstream.TaskInProgress || s == upstream.TaskDone
}

// ListTasks lists tasks.
func (s *Store) ListTasks(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Task], error) {
	return listPage(ctx, s, listing[upstream.Task]{action: upstream.TasksRead, table: tasks,
		source: scoped(s.taskSource),
		then: func(ctx context.Context, q querier, c upstream.Caller, items []upstream.Task, lq upstream.ListQuery) ([]upstream.Task, error) {
			return items, s.enrichTasks(ctx, q, c.AccountID, items, lq.Fields)
		}}, lq)
}

// GetTask returns one task.
func (s *Store) GetTask(ctx context.Context, id string) (upstream.Task, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Task{}, err
	}
	q := s.read()
	t, err := tasks.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.Task{}, err
	}
	hide, err := s.authorizeTask(ctx, q, c, upstream.TasksRead, t)
	if err != nil {
		return upstream.Task{}, err
	}
	t, err = s.getTask(ctx, q, c.AccountID, id)
	if hide {
		t.ParentName = ""
	}
	return t, err
}

func (s *Store) getTask(ctx context.Context, q querier, account, id string) (upstream.Task, error) {
	t, err := tasks.get(ctx, q, account, id)
	if err != nil {
		return upstream.Task{}, err
	}
	ts := []upstream.Task{t}
	if err := s.enrichTasks(ctx, q, account, ts, nil); err != nil {
		return upstream.Task{}, err
	}
	return ts[0], nil
}

// taskParent resolves a task's parent (itemFacts.taskParent), loading
// it, its goal and their sessions in one statement.
func (s *Store) taskParent(ctx context.Context, q querier, c upstream.Caller, t *upstream.Task) (string, error) {
	f := &itemFacts{noSubject: true}
	if t.ParentID != "" && t.ParentType != upstream.ParentMetric {
		f.goalIDs = []string{t.ParentID}
	}
	if t.ParentID != "" && t.ParentType != upstream.ParentGoal {
		f.metricIDs = []string{t.ParentID}
	}
	if err := f.load(ctx, s, q, c); err != nil {
		return "", err
	}
	return f.taskParent(t)
}

func checkTask(t *upstream.Task) error {
	if t.Name == "" {
		return upstream.Invalid("name", "must not be empty")
	}
	if len(t.Name) > maxName {
		return upstream.Invalid("name", "must be at most %d characters", maxName)
	}
	if !validTaskStatus(t.Status) {
		return upstream.Invalid("status", "must be todo, inprogress or done")
	}
	if t.Priority < 0 || t.Priority > 3 {
		return upstream.Invalid("priority", "must be between 0 and 3")
	}
	t.Assignee = nil
	return nil
}

// CreateTask creates a task, under a goal or key result when parentId is set.
func (s *Store) CreateTask(ctx context.Context, in upstream.TaskInput) (upstream.Task, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Task{}, err
	}
	now := s.timestamp()
	t := upstream.Task{
		ID: s.ids.New(), AccountID: c.AccountID, Name: strings.TrimSpace(in.Name), Description: in.Description,
		RichTextDescription: in.RichTextDescription, Status: in.Status, TaskType: in.TaskType, Priority: in.Priority,
		OwnerID: in.OwnerID, ParentID: in.ParentID, ParentType: in.ParentType, ExternalID: in.ExternalID,
		ExternalSystem: in.ExternalSystem, CreatedByID: c.UserID, ModifiedByID: c.UserID, DateCreated: now,
		DateModified: now, Snapshots: []upstream.TaskSnapshot{},
	}
	if t.Status == "" {
		t.Status = upstream.TaskTodo
	}
	if t.OwnerID == "" {
		t.OwnerID = c.UserID
	}
	if t.DueDate, err = upstream.ParseDate("dueDate", in.DueDate); err != nil {
		return upstream.Task{}, err
	}
	if err := checkTask(&t); err != nil {
		return upstream.Task{}, err
	}
	err = s.tx(ctx, func(q querier) error {
		f := &itemFacts{ownerIDs: []string{t.OwnerID}, countTasksOf: t.ParentID}
		if t.ParentType != upstream.ParentMetric {
			f.goalIDs = []string{t.ParentID}
		}
		if t.ParentType != upstream.ParentGoal {
			f.metricIDs = []string{t.ParentID}
		}
		if t.ParentID == "" || s.bulk != nil {
			f.countTasksOf = "" // no parent, or a batch counts at its end
		}
		if err := f.load(ctx, s, q, c); err != nil {
			return err
		}
		goalID, err := f.taskParent(&t)
		if err != nil {
			return err
		}
		it := f.taskItem(t)
		if err := f.decide(ctx, s, q, c, upstream.TasksCreate, it); err != nil {
			if upstream.ErrorCode(err) == upstream.CodeNotFound {
				return upstream.Invalid("parentId", "no goal or key result %q", t.ParentID)
			}
			return err
		}
		if err := f.checkOwners("ownerId", []string{t.OwnerID}); err != nil {
			return err
		}
		if err := queueInsert(ctx, s, q, tasks, c.AccountID, &t); err != nil {
			return err
		}
		if s.bulk != nil {
			if err := s.taskCounts(ctx, q, c.AccountID, t, goalID); err != nil {
				return err
			}
			return nil // a batch returns what it wrote, without a read's enrichment
		}
		if err := f.countNewTask(ctx, s, q, c.AccountID, t, goalID); err != nil {
			return err
		}
		// The answer is the task as stored, with its owner, as GetTask
		// would read it.
		if t, err = asStored(t); err != nil {
			return err
		}
		if a, ok := f.owners[t.OwnerID]; ok {
			t.Assignee = &a
		}
		return nil
	})
	if err != nil {
		return upstream.Task{}, err
	}
	return t, nil
}

// taskCounts refreshes the counts that a task's parent shows.
func (s *Store) taskCounts(ctx context.Context, q querier, account string, t upstream.Task, goalID string) error {
	if t.ParentType == upstream.ParentMetric {
		m, err := metrics.get(ctx, q, account, t.ParentID)
		if err != nil {
			return err
		}
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM tasks WHERE account_id = ? AND parent_id = ?", account, m.ID).Scan(&n); err != nil {
			return err
		}
		if m.TasksCount != n {
			m.TasksCount = n
			return metrics.update(ctx, q, account, &m)
		}
		return nil
	}
	if goalID == "" {
		return nil
	}
	return s.refreshTaskCounts(ctx, q, account, goalID)
}

// UpdateTask changes a task; a status change is recorded in its snapshots.
func (s *Store) UpdateTask(ctx context.Context, id string, in upstream.TaskPatch) (upstream.Task, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Task{}, err
	}
	var t upstream.Task
	err = s.tx(ctx, func(q querier) error {
		old, err := tasks.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if _, err := s.authorizeTask(ctx, q, c, upstream.TasksUpdate, old); err != nil {
			return err
		}
		if _, err := s.taskParent(ctx, q, c, &old); err != nil {
			return err
		}
		t = old
		set(&t.Name, in.Name, strings.TrimSpace)
		set(&t.Description, in.Description, nil)
		set(&t.RichTextDescription, in.RichTextDescription, nil)
		set(&t.OwnerID, in.OwnerID, nil)
		set(&t.ParentID, in.ParentID, nil)
		set(&t.ParentType, in.ParentType, nil)
		set(&t.Status, in.Status, nil)
		set(&t.TaskType, in.TaskType, nil)
		set(&t.ExternalID, in.ExternalID, nil)
		set(&t.ExternalSystem, in.ExternalSystem, nil)
		if in.ParentID != nil && in.ParentType == nil {
			t.ParentType = "" // infer it from the new parent
		}
		if in.Priority != nil {
			t.Priority = *in.Priority
		}
		if in.Archived != nil {
			t.Archived = *in.Archived
		}
		if in.DueDate != nil {
			if t.DueDate, err = upstream.ParseDate("dueDate", *in.DueDate); err != nil {
				return err
			}
		}
		if in.Comment != nil {
			t.LastComment = &upstream.TaskComment{CreatedByID: c.UserID, Text: *in.Comment}
		}
		if err := checkTask(&t); err != nil {
			return err
		}
		goalID, err := s.taskParent(ctx, q, c, &t)
		if err != nil {
			return err
		}
		if t.ParentID != old.ParentID {
			if err := s.authorizeTaskWrite(ctx, q, c, upstream.TasksCreate, t); err != nil {
				return err
			}
		}
		if t.OwnerID != old.OwnerID {
			if err := s.checkOwners(ctx, q, c.AccountID, "ownerId", []string{t.OwnerID}); err != nil {
				return err
			}
		}
		now := s.timestamp()
		if t.Status != old.Status {
			t.Snapshots = append(t.Snapshots, upstream.TaskSnapshot{ID: s.ids.New(), ModifiedAt: now, ModifiedBy: c.UserID,
				NewStatus: t.Status, OldStatus: old.Status, PreviouslyModifiedAt: old.DateModified})
		}
		t.ModifiedByID, t.DateModified = c.UserID, now
		if err := tasks.update(ctx, q, c.AccountID, &t); err != nil {
			return err
		}
		if old.ParentID != t.ParentID {
			oldGoal := ""
			if old.ParentType == upstream.ParentGoal {
				oldGoal = old.ParentID
			}
			if old.ParentID != "" {
				if err := s.taskCounts(ctx, q, c.AccountID, old, oldGoal); err != nil {
					return err
				}
			}
		}
		if err := s.taskCounts(ctx, q, c.AccountID, t, goalID); err != nil {
			return err
		}
		t, err = s.getTask(ctx, q, c.AccountID, t.ID)
		return err
	})
	if err != nil {
		return upstream.Task{}, err
	}
	return t, nil
}

// DeleteTask deletes a task.
func (s *Store) DeleteTask(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		t, err := tasks.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if _, err := s.authorizeTask(ctx, q, c, upstream.TasksDelete, t); err != nil {
			return err
		}
		goalID, err := s.taskParent(ctx, q, c, &t)
		if err != nil {
			return err
		}
		if err := tasks.deleteWhere(ctx, q, c.AccountID, "id = ?", id); err != nil {
			return err
		}
		if t.ParentID == "" {
			return nil
		}
		return s.taskCounts(ctx, q, c.AccountID, t, goalID)
	})
}
