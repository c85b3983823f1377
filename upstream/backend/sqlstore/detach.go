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
//
// prev, when not nil, is the item detached before p in the same listing:
// a string equal to prev's in the same field (the same element of a list)
// shares prev's bytes instead of being copied. The rows of a level repeat
// their neighbours' account, session, owner and parent (a goal's key
// results are adjacent in id order): on a tree's last level of key results
// that is a third of the strings' bytes.
func (sf stringFields) detach(p, prev unsafe.Pointer) {
	if len(sf.strs) == 0 && len(sf.lists) == 0 {
		return
	}
	// shared reports whether *s is the same as the string at *was (nil:
	// none), and then points s at it.
	shared := func(s, was *string) bool {
		if was == nil || len(*s) == 0 || *s != *was {
			return false
		}
		*s = *was
		return true
	}
	// prevAt returns prev's string at offset off, or element i of its list
	// there (list), or nil.
	prevAt := func(off uintptr, list bool, i int) *string {
		if prev == nil {
			return nil
		}
		if !list {
			return (*string)(unsafe.Add(prev, off))
		}
		if l := *(*[]string)(unsafe.Add(prev, off)); i < len(l) {
			return &l[i]
		}
		return nil
	}
	n := 0
	for _, off := range sf.strs {
		if s := (*string)(unsafe.Add(p, off)); !shared(s, prevAt(off, false, 0)) {
			n += len(*s)
		}
	}
	for _, off := range sf.lists {
		l := *(*[]string)(unsafe.Add(p, off))
		for i := range l {
			if !shared(&l[i], prevAt(off, true, i)) {
				n += len(l[i])
			}
		}
	}
	buf := make([]byte, 0, n)
	move := func(s *string, was *string) {
		if len(*s) == 0 {
			*s = ""
			return
		}
		if was != nil && unsafe.StringData(*s) == unsafe.StringData(*was) {
			return // shared above
		}
		start := len(buf)
		buf = append(buf, *s...)
		*s = unsafe.String(&buf[start], len(*s))
	}
	for _, off := range sf.strs {
		move((*string)(unsafe.Add(p, off)), prevAt(off, false, 0))
	}
	for _, off := range sf.lists {
		l := *(*[]string)(unsafe.Add(p, off))
		for i := range l {
			move(&l[i], prevAt(off, true, i))
		}
	}
}
