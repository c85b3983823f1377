package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// IgnoredFieldsHeader is the response header naming the fields of a write
// body that were accepted and ignored (upstream/compat.go): comma-separated
// paths, such as "id, accountId, tags[0].id".
const IgnoredFieldsHeader = "OKR-Ignored-Fields"

// decodeInput reads a create body, or the body of an update that takes the
// document as read (PUT /api/v1/tasks/{id}), into dst (of type In) as
// decodeBody does, after dropping the fields the policy of
// upstream/compat.go ignores: those the answer (of type out) carries and In
// does not take, at every depth, and upstream.PlatformIgnoredFields and
// the upstream.PlatformReadOnlyFields of out at the top. The dropped fields
// are named in the IgnoredFieldsHeader.
func decodeInput(w http.ResponseWriter, r *http.Request, dst any, out reflect.Type) error {
	return decodeBodyWith(w, r, dst, func(body []byte) ([]byte, error) {
		if err := scanJSON(bytes.TrimSpace(body)); err != nil {
			return nil, err
		}
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&doc) != nil || doc == nil {
			return body, nil // not an object: DecodeJSON says why
		}
		var ignored []string
		stripIgnored(doc, reflect.TypeOf(dst), out, "", &ignored)
		if len(ignored) == 0 {
			return body, nil
		}
		slices.Sort(ignored)
		w.Header().Set(IgnoredFieldsHeader, strings.Join(ignored, ", "))
		return json.Marshal(doc)
	})
}

// stripIgnored removes from v (a decoded JSON value that is to decode into
// in) the fields of out that in does not have, and at the top (path "")
// the platform's ignored fields; each removed path is added to ignored.
// Fields neither type has are left for the strict decoder to refuse.
func stripIgnored(v any, in, out reflect.Type, path string, ignored *[]string) {
	in, out = deref(in), deref(out)
	switch x := v.(type) {
	case map[string]any:
		if in.Kind() != reflect.Struct {
			return
		}
		inF, outF := upstream.JSONFields(in), upstream.JSONFields(out)
		for k, val := range x {
			lk := strings.ToLower(k)
			if f, ok := inF[lk]; ok {
				if o, ok := outF[lk]; ok {
					stripIgnored(val, f.Type, o.Type, join(path, k), ignored)
				}
				continue
			}
			_, isOut := outF[lk]
			platform := path == "" && slices.ContainsFunc(slices.Concat(upstream.PlatformIgnoredFields, upstream.PlatformReadOnlyFields[out]),
				func(n string) bool { return strings.EqualFold(n, k) })
			if isOut || platform {
				delete(x, k)
				*ignored = append(*ignored, join(path, k))
			}
		}
	case []any:
		if in.Kind() != reflect.Slice || out == nil || out.Kind() != reflect.Slice {
			return
		}
		for i, el := range x {
			stripIgnored(el, in.Elem(), out.Elem(), path+"["+strconv.Itoa(i)+"]", ignored)
		}
	}
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
