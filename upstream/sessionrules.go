package upstream

// Change is the kind of write a session's state gates (SessionGate).
type Change int

const (
	// Structure is a structural edit: creating, changing, moving or
	// deleting goals and key results.
	Structure Change = iota
	// Progress records progress: check-ins, tasks, tags, closing a goal.
	Progress
)

// SessionGate refuses a write that the session's state forbids. Structural
// edits need an open session; progress is allowed in locked sessions too;
// closed sessions are read-only (session_closed, session_locked).
func SessionGate(ss Session, ch Change) error {
	switch {
	case ss.Status == SessionClosed:
		return Errorf(CodeSessionClosed, "session %q is closed", ss.ID)
	case ss.Status == SessionLocked && ch == Structure:
		return Errorf(CodeSessionLocked, "session %q is locked: only check-ins and task changes are allowed", ss.ID)
	}
	return nil
}

// GoalPatchChange is the kind of change a goal patch makes: a patch that
// only sets the closed status records progress (a goal may be closed in a
// locked session); anything else is structural.
func GoalPatchChange(in GoalPatch) Change {
	if in == (GoalPatch{ClosedStatus: in.ClosedStatus}) && in.ClosedStatus != nil {
		return Progress
	}
	return Structure
}

// SessionPatchGate refuses a patch of a closed session that does not
// reopen it: a closed session can only be reopened (its status set to
// open or locked) before anything else changes.
func SessionPatchGate(ss Session, in SessionPatch) error {
	if ss.Status == SessionClosed && (in.Status == nil || *in.Status == SessionClosed) {
		return Errorf(CodeSessionClosed, "session %q is closed; reopen it first", ss.ID)
	}
	return nil
}

// ValidSessionStatus reports whether s is open, locked or closed.
func ValidSessionStatus(s string) bool {
	return s == SessionOpen || s == SessionLocked || s == SessionClosed
}

// MaxTitleLength bounds a session's title, in bytes.
const MaxTitleLength = 500

// CheckSession validates a session about to be written, on its own
// fields: a title, a known status, a start and an end not before it,
// limits that are not negative, and not its own parent. Whether the
// parent exists and makes no cycle is for the store to check.
func CheckSession(ss Session) error {
	if ss.Title == "" {
		return Invalid("title", "must not be empty")
	}
	if len(ss.Title) > MaxTitleLength {
		return Invalid("title", "must be at most %d characters", MaxTitleLength)
	}
	if !ValidSessionStatus(ss.Status) {
		return Invalid("status", "must be open, locked or closed")
	}
	if ss.Start == "" {
		return Invalid("start", "is required")
	}
	if ss.End == "" {
		return Invalid("end", "is required")
	}
	if ss.End < ss.Start {
		return Invalid("end", "must not be before start")
	}
	if ss.Settings.GoalsPerOwnerLimit < 0 || ss.Settings.MetricsPerGoalLimit < 0 {
		return Invalid("settings", "limits must not be negative")
	}
	if ss.ParentID != "" && ss.ParentID == ss.ID {
		return Invalid("parentId", "a session cannot be its own parent")
	}
	return nil
}
