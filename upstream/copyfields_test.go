package upstream_test

import (
	"reflect"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestCopyFieldsMatch: every field an input or patch type tags
// store:"copy" has a field of the same name and type in the item it
// creates or changes, so that CopyFields does not skip it.
func TestCopyFieldsMatch(t *testing.T) {
	pairs := []struct{ item, in reflect.Type }{
		{reflect.TypeFor[upstream.Goal](), reflect.TypeFor[upstream.GoalInput]()},
		{reflect.TypeFor[upstream.Goal](), reflect.TypeFor[upstream.GoalPatch]()},
		{reflect.TypeFor[upstream.Metric](), reflect.TypeFor[upstream.MetricInput]()},
		{reflect.TypeFor[upstream.Metric](), reflect.TypeFor[upstream.MetricPatch]()},
		{reflect.TypeFor[upstream.Task](), reflect.TypeFor[upstream.TaskInput]()},
		{reflect.TypeFor[upstream.Task](), reflect.TypeFor[upstream.TaskPatch]()},
		{reflect.TypeFor[upstream.Session](), reflect.TypeFor[upstream.SessionInput]()},
		{reflect.TypeFor[upstream.Session](), reflect.TypeFor[upstream.SessionPatch]()},
	}
	tagged := 0
	for _, p := range pairs {
		for _, f := range reflect.VisibleFields(p.in) {
			if f.Tag.Get("store") == "copy" {
				tagged++
			}
		}
		for _, m := range upstream.CopyMismatches(p.item, p.in) {
			t.Errorf("%s is tagged store:\"copy\" but %s has no field of its name and type", m, p.item.Name())
		}
	}
	if tagged == 0 {
		t.Fatal("no field is tagged store:\"copy\"")
	}
}

// TestCopyFields: an input's tagged value is copied; a patch's tagged
// pointer is copied when set and keeps the stored value when nil;
// untagged fields are left to the store.
func TestCopyFields(t *testing.T) {
	var g upstream.Goal
	upstream.CopyFields(&g, upstream.GoalInput{Name: "n", ExternalID: "JIRA-1"})
	if g.ExternalID != "JIRA-1" || g.Name != "" {
		t.Fatalf("after the input: externalId %q name %q; want JIRA-1 and no name (untagged)", g.ExternalID, g.Name)
	}
	upstream.CopyFields(&g, upstream.GoalPatch{})
	if g.ExternalID != "JIRA-1" {
		t.Fatalf("a patch without the field changed it to %q", g.ExternalID)
	}
	v := ""
	upstream.CopyFields(&g, upstream.GoalPatch{ExternalID: &v})
	if g.ExternalID != "" {
		t.Fatalf("a patch setting it to \"\" left %q", g.ExternalID)
	}
}
