package sqlstore

import (
	"reflect"
	"unsafe"
)

// stringFields is where a document type keeps its strings: the offsets of
// its string and []string fields, in the struct and in the structs it
// embeds or holds by value.
//
// The store's decoder (github.com/goccy/go-json) copies each document it
// decodes and points the strings it decodes into that copy instead of
// allocating them: one id kept alive the whole document — its keys, quotes,
// numbers and the keys the caller never reads. On the 10,000-objective tree
// those copies were a quarter of the live heap at its peak (docs/decisions/tree-memory.md,
// "The tree's memory"). detach moves a decoded item's strings into one
// allocation of their own bytes, so the copy becomes garbage.
type stringFields struct {
	strs  []uintptr // offsets of string fields
	lists []uintptr // offsets of []string fields
}

// stringFieldsOf returns the string fields of the struct type t (none for
// another kind).
func stringFieldsOf(t reflect.Type) stringFields {
	var sf stringFields
	sf.add(t, 0)
	return sf
}

func (sf *stringFields) add(t reflect.Type, base uintptr) {
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		switch k := f.Type.Kind(); {
		case k == reflect.String:
			sf.strs = append(sf.strs, base+f.Offset)
		case k == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
			sf.lists = append(sf.lists, base+f.Offset)
		case k == reflect.Struct:
			sf.add(f.Type, base+f.Offset)
		}
	}
}

// detach copies the strings of the item at p (of the type sf describes)
// into one new allocation holding their bytes and nothing else, and points
// them there. Empty strings become "" (a zero-length string into the
// decoder's copy would still keep it alive).
func (sf stringFields) detach(p unsafe.Pointer) {
	if len(sf.strs) == 0 && len(sf.lists) == 0 {
		return
	}
	n := 0
	for _, off := range sf.strs {
		n += len(*(*string)(unsafe.Add(p, off)))
	}
	for _, off := range sf.lists {
		for _, s := range *(*[]string)(unsafe.Add(p, off)) {
			n += len(s)
		}
	}
	buf := make([]byte, 0, n)
	move := func(s *string) {
		if len(*s) == 0 {
			*s = ""
			return
		}
		start := len(buf)
		buf = append(buf, *s...)
		*s = unsafe.String(&buf[start], len(*s))
	}
	for _, off := range sf.strs {
		move((*string)(unsafe.Add(p, off)))
	}
	for _, off := range sf.lists {
		l := *(*[]string)(unsafe.Add(p, off))
		for i := range l {
			move(&l[i])
		}
	}
}
