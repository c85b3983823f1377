package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// decodeBody reads the JSON request body into dst, strictly: the body at
// most MaxBodyBytes (413), one JSON object with only known fields of the
// right types and nothing after it (400 naming the field). Its media type
// (bodyMediaType) must be JSON or one that clients send for a JSON body by
// default (415 otherwise).
func decodeBody(w http.ResponseWriter, r *http.Request, dst any) error {
	return decodeBodyWith(w, r, dst, nil)
}

// decodeBodyWith is decodeBody with the body passed through prepare (when
// not nil) before it is decoded.
func decodeBodyWith(w http.ResponseWriter, r *http.Request, dst any, prepare func([]byte) ([]byte, error)) error {
	lenient, err := bodyMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return upstream.Errorf(codeTooLarge, "the request body is larger than %d bytes", MaxBodyBytes)
		}
		return upstream.Errorf(upstream.CodeInvalid, "the request body could not be read")
	}
	if lenient {
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] != '{' {
			return &upstream.Error{Code: codeUnsupportedMediaType, Message: "the request body must be application/json"}
		}
	}
	if prepare != nil {
		if body, err = prepare(body); err != nil {
			return err
		}
	}
	return DecodeJSON(body, dst)
}

// bodyMediaType checks the Content-Type of a request body. application/json
// and any +json type are JSON. No Content-Type, text/plain and
// application/x-www-form-urlencoded are what HTTP clients send by default
// for a body given as a string — the real platform's clients send JSON that
// way (its command-line client sends none) — so they are read as JSON when
// the body is a JSON object (lenient is true; any other body is 415). Every
// other type is 415 unsupported_media_type, and so is a charset other than
// UTF-8. Accepting the types a browser sends cross-site without a preflight
// opens no cross-site request forgery: every operation needs an
// Authorization header, which no cross-site request carries unasked.
func bodyMediaType(ct string) (lenient bool, err error) {
	if strings.TrimSpace(ct) == "" {
		return true, nil
	}
	mt, params, perr := mime.ParseMediaType(ct)
	if perr != nil {
		return false, &upstream.Error{Code: codeUnsupportedMediaType, Message: "the request body must be application/json"}
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return false, &upstream.Error{Code: codeUnsupportedMediaType, Message: "the request body must be UTF-8 encoded JSON"}
	}
	switch {
	case mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
		return false, nil
	case mt == "text/plain" || mt == "application/x-www-form-urlencoded":
		return true, nil
	}
	return false, &upstream.Error{Code: codeUnsupportedMediaType, Message: "the request body must be application/json"}
}

// DecodeJSON decodes body, which must hold exactly one JSON object, into dst
// with unknown fields disallowed, after scanJSON has refused duplicate keys,
// invalid UTF-8 and NUL characters; text over its length limit
// (upstream.CheckTextLimits) is refused after decoding. Its errors are *upstream.Error values with
// code invalid_input that name the offending field where there is one.
func DecodeJSON(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return upstream.Errorf(upstream.CodeInvalid, "a JSON request body is required")
	}
	if trimmed[0] != '{' {
		return upstream.Errorf(upstream.CodeInvalid, "the request body must be a JSON object")
	}
	if err := scanJSON(trimmed); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return upstream.Errorf(upstream.CodeInvalid, "the request body has data after the JSON object")
	}
	return upstream.CheckTextLimits(dst)
}

// jsonError turns an encoding/json decoding error into a client error.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return upstream.Errorf(upstream.CodeInvalid, "the request body is not valid JSON (at byte %d): %s", se.Offset, se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return upstream.Errorf(upstream.CodeInvalid, "the request body is not valid JSON: it ends too early")
	case errors.As(err, &te):
		if te.Field == "" {
			return upstream.Errorf(upstream.CodeInvalid, "the request body must be a JSON object")
		}
		return upstream.Invalid(fieldName(te.Field), "must be %s, not %s", jsonKind(te.Type), truncate(te.Value, maxFieldName))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if n, uerr := strconv.Unquote(name); uerr == nil {
			name = n
		}
		return upstream.Invalid(fieldName(name), "unknown field")
	}
	return upstream.Errorf(upstream.CodeInvalid, "the request body could not be decoded as JSON")
}

// jsonKind names the JSON type that decodes into t.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a JSON value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a JSON value"
}
