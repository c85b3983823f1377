package upstream

import "reflect"

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

// ProgressTag marks a field of a patch type (GoalPatch) whose change
// records progress, allowed in a locked session: a patch that sets only
// such fields is Progress (PatchChange). A field without it is structure,
// refused in a locked session, which is the safe default for a new field;
// so whether a field may change in a locked session is said where the
// field is declared (docs/howto/add-field.md).
//
//	ClosedStatus *ClosedStatus `json:"closedStatus" session:"progress"`
const ProgressTag = `session:"progress"`

// GoalPatchChange is the kind of change a goal patch makes: a patch that
// only sets the fields tagged ProgressTag (the closed status: a goal may
// be closed in a locked session) records progress; anything else is
// structural.
func GoalPatchChange(in GoalPatch) Change { return PatchChange(in) }

// PatchChange is the kind of change a patch struct of pointer fields
// makes: Progress when it sets at least one field and every field it sets
// is tagged ProgressTag, Structure otherwise.
func PatchChange[P any](in P) Change {
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Struct {
		return Structure
	}
	set := false
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			continue
		}
		if v.Type().Field(i).Tag.Get("session") != "progress" {
			return Structure
		}
		set = true
	}
	if set {
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
