package upstream_test

import (
	"reflect"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

func TestParseLegacyUserFilter(t *testing.T) {
	const role = "0123456789abcdef01234567"
	for _, tc := range []struct {
		src  string
		want upstream.LegacyUserQuery
	}{
		{"", upstream.LegacyUserQuery{}},
		{"email:acme", upstream.LegacyUserQuery{Email: []string{"acme"}}},
		{"email:acme name:ann,name:bob", upstream.LegacyUserQuery{Email: []string{"acme"}, Name: []string{"ann", "bob"}}},
		{"roles:" + role + ",roles:" + role, upstream.LegacyUserQuery{Roles: []string{role, role}}},
		{" , email:a ,, ", upstream.LegacyUserQuery{Email: []string{"a"}}},
	} {
		got, err := upstream.ParseLegacyUserFilter(tc.src)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseLegacyUserFilter(%q) = %+v, %v; want %+v", tc.src, got, err, tc.want)
		}
	}
	for _, src := range []string{"acme", "email:", "email: ", "roles:nothex", "team:x", ":x"} {
		_, err := upstream.ParseLegacyUserFilter(src)
		if upstream.ErrorCode(err) != upstream.CodeInvalid || err.(*upstream.Error).Fields[0].Field != "filter" {
			t.Errorf("ParseLegacyUserFilter(%q) = %v, want invalid_input naming filter", src, err)
		}
	}
}
