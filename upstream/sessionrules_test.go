package upstream

import (
	"strings"
	"testing"
)

func TestSessionGate(t *testing.T) {
	for _, tc := range []struct {
		status string
		ch     Change
		want   Code
	}{
		{SessionOpen, Structure, ""},
		{SessionOpen, Progress, ""},
		{SessionLocked, Structure, CodeSessionLocked},
		{SessionLocked, Progress, ""},
		{SessionClosed, Structure, CodeSessionClosed},
		{SessionClosed, Progress, CodeSessionClosed},
	} {
		if got := ErrorCode(SessionGate(Session{ID: "s", Status: tc.status}, tc.ch)); got != tc.want {
			t.Errorf("SessionGate(%s, %d) = %q, want %q", tc.status, tc.ch, got, tc.want)
		}
	}
}

func TestGoalPatchChange(t *testing.T) {
	closed := &ClosedStatus{Status: GoalAchieved}
	name := "x"
	for _, tc := range []struct {
		name string
		in   GoalPatch
		want Change
	}{
		{"closing only is progress", GoalPatch{ClosedStatus: closed}, Progress},
		{"closing and renaming is structural", GoalPatch{ClosedStatus: closed, Name: &name}, Structure},
		{"renaming is structural", GoalPatch{Name: &name}, Structure},
		{"an empty patch is structural", GoalPatch{}, Structure},
		{"closing and a field without session:\"progress\" is structural", GoalPatch{ClosedStatus: closed, ExternalID: &name}, Structure},
	} {
		if got := GoalPatchChange(tc.in); got != tc.want {
			t.Errorf("%s: GoalPatchChange = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSessionPatchGate(t *testing.T) {
	open, closed := SessionOpen, SessionClosed
	title := "t"
	for _, tc := range []struct {
		name   string
		status string
		in     SessionPatch
		want   Code
	}{
		{"an open session takes any patch", SessionOpen, SessionPatch{Title: &title}, ""},
		{"a closed session is reopened", SessionClosed, SessionPatch{Status: &open}, ""},
		{"a closed session is not renamed", SessionClosed, SessionPatch{Title: &title}, CodeSessionClosed},
		{"closing a closed session again is refused", SessionClosed, SessionPatch{Status: &closed}, CodeSessionClosed},
	} {
		if got := ErrorCode(SessionPatchGate(Session{ID: "s", Status: tc.status}, tc.in)); got != tc.want {
			t.Errorf("%s: SessionPatchGate = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCheckSession(t *testing.T) {
	ok := Session{ID: "s", Title: "Q1", Status: SessionOpen, Start: "2026-01-01", End: "2026-03-31"}
	for _, tc := range []struct {
		name  string
		edit  func(*Session)
		field string // "" when valid
	}{
		{"valid", func(*Session) {}, ""},
		{"no title", func(s *Session) { s.Title = "" }, "title"},
		{"long title", func(s *Session) { s.Title = strings.Repeat("x", MaxTitleLength+1) }, "title"},
		{"title at the limit", func(s *Session) { s.Title = strings.Repeat("x", MaxTitleLength) }, ""},
		{"unknown status", func(s *Session) { s.Status = "paused" }, "status"},
		{"no start", func(s *Session) { s.Start = "" }, "start"},
		{"no end", func(s *Session) { s.End = "" }, "end"},
		{"end before start", func(s *Session) { s.End = "2025-12-31" }, "end"},
		{"negative limit", func(s *Session) { s.Settings.MetricsPerGoalLimit = -1 }, "settings"},
		{"its own parent", func(s *Session) { s.ParentID = s.ID }, "parentId"},
		{"another parent", func(s *Session) { s.ParentID = "p" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := ok
			tc.edit(&ss)
			err := CheckSession(ss)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("CheckSession: %v", err)
				}
				return
			}
			if got := invalidField(err); got != tc.field {
				t.Fatalf("CheckSession: %v, want invalid %s", err, tc.field)
			}
		})
	}
}
