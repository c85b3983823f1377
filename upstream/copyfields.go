package upstream

import "reflect"

// CopyTag marks a field of an input or patch type (GoalInput, GoalPatch,
// MetricInput, ...) that is stored as given: the store applies no rule of
// its own to it, so CopyFields copies it into the item and the store names
// no such field. A field with a rule (trimmed, parsed, checked, derived)
// is not marked and is applied by the store by hand.
//
//	ExternalID *string `json:"externalId" store:"copy"`
const CopyTag = `store:"copy"`

// CopyFields copies the fields of in, an input or patch struct, that are
// tagged store:"copy" into the same-named fields of *item: an input's
// value as it is, a patch's pointer when it is set (a patch field left
// nil keeps the stored value). It is how a create or an update stores a
// plain field without the store naming it. A tagged field without a
// same-named field of the same type in the item is skipped;
// TestCopyFieldsMatch (upstream) fails on one.
func CopyFields[T, I any](item *T, in I) {
	dst := reflect.ValueOf(item).Elem()
	src := reflect.ValueOf(in)
	if dst.Kind() != reflect.Struct || src.Kind() != reflect.Struct {
		return
	}
	for _, f := range reflect.VisibleFields(src.Type()) {
		if f.Tag.Get("store") != "copy" {
			continue
		}
		to := dst.FieldByName(f.Name)
		if !to.IsValid() || !to.CanSet() {
			continue
		}
		v := src.FieldByIndex(f.Index)
		switch {
		case v.Type() == to.Type():
			to.Set(v)
		case v.Kind() == reflect.Pointer && v.Type().Elem() == to.Type():
			if !v.IsNil() {
				to.Set(v.Elem())
			}
		}
	}
}

// CopyMismatches returns the fields of the input or patch type in tagged
// store:"copy" that item has no field for (by name, of the same type or
// the type a patch's pointer points to): what CopyFields would skip.
func CopyMismatches(item, in reflect.Type) []string {
	var out []string
	for _, f := range reflect.VisibleFields(in) {
		if f.Tag.Get("store") != "copy" {
			continue
		}
		to, ok := item.FieldByName(f.Name)
		if !ok || !to.IsExported() || (f.Type != to.Type && (f.Type.Kind() != reflect.Pointer || f.Type.Elem() != to.Type)) {
			out = append(out, in.Name()+"."+f.Name)
		}
	}
	return out
}
