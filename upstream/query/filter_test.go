package query

import (
	"errors"
	"strings"
	"testing"
)

func TestParseFilterValid(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"empty", ``, `{}`},
		{"blank", "  \n", `{}`},
		{"empty object", `{}`, `{}`},
		{"literal string", `{"name":"Alpha"}`, `{"name":"Alpha"}`},
		{"literal null", `{"name":null}`, `{"name":null}`},
		{"unquoted keys", `{name:"x", attainment:{$gt:1}}`, `{"name":"x","attainment":{"$gt":1}}`},
		{"single quotes", `{'name':'it\'s'}`, `{"name":"it's"}`},
		{"single quotes with double inside", `{name:'say "hi"'}`, `{"name":"say \"hi\""}`},
		{"escapes", `{name:"a\u00e9\n\/\\"}`, `{"name":"aé\n/\\"}`},
		{"surrogate pair", `{name:"\ud83d\ude00"}`, `{"name":"😀"}`},
		{"lone surrogate", `{name:"\ud83d"}`, `{"name":"�"}`},
		{"whitespace", " { name : \"x\" ,\tpriority\r\n: 2 } ", `{"name":"x","priority":2}`},
		{"_id alias", `{_id:"0123456789abcdef01234567"}`, `{"id":"0123456789abcdef01234567"}`},
		{"id upper case", `{id:"0123456789ABCDEF01234567"}`, `{"id":"0123456789abcdef01234567"}`},
		{"$eq", `{name:{$eq:"x"}}`, `{"name":"x"}`},
		{"$eq null", `{name:{$eq:null}}`, `{"name":null}`},
		{"$ne", `{name:{$ne:"x"}}`, `{"name":{"$ne":"x"}}`},
		{"$ne null", `{name:{$ne:null}}`, `{"name":{"$ne":null}}`},
		{"range", `{attainment:{$gte:0.5,$lt:1e2}}`, `{"attainment":{"$gte":0.5,"$lt":100}}`},
		{"$gt/$lte", `{priority:{$gt:-1,$lte:3}}`, `{"priority":{"$gt":-1,"$lte":3}}`},
		{"integer as float", `{priority:2.0}`, `{"priority":2}`},
		{"bool", `{isActive:true}`, `{"isActive":true}`},
		{"bool column", `{archived:{$ne:false}}`, `{"archived":{"$ne":false}}`},
		{"$in", `{name:{$in:["a","b",null]}}`, `{"name":{"$in":["a","b",null]}}`},
		{"$in empty", `{name:{$in:[]}}`, `{"name":{"$in":[]}}`},
		{"$nin", `{priority:{$nin:[1,2]}}`, `{"priority":{"$nin":[1,2]}}`},
		{"$regex", `{name:{$regex:"^a"}}`, `{"name":{"$regex":"^a"}}`},
		{"$regex i", `{name:{$regex:"^a",$options:"i"}}`, `{"name":{"$regex":"^a","$options":"i"}}`},
		{"$options first", `{name:{$options:"i",$regex:"^a"}}`, `{"name":{"$regex":"^a","$options":"i"}}`},
		{"$options empty", `{name:{$regex:"^a",$options:""}}`, `{"name":{"$regex":"^a"}}`},
		{"$regex on id", `{id:{$regex:"^ab"}}`, `{"id":{"$regex":"^ab"}}`},
		{"$regex on date", `{dueDate:{$regex:"^2026"}}`, `{"dueDate":{"$regex":"^2026"}}`},
		{"$regex on datetime", `{createdAt:{$regex:"Z$"}}`, `{"createdAt":{"$regex":"Z$"}}`},
		{"$regex on list", `{ownerIds:{$regex:"1$"}}`, `{"ownerIds":{"$regex":"1$"}}`},
		{"$exists", `{name:{$exists:false}}`, `{"name":{"$exists":false}}`},
		{"$not object", `{attainment:{$not:{$gt:1,$lt:2}}}`, `{"attainment":{"$not":{"$gt":1,"$lt":2}}}`},
		{"$not regex string", `{name:{$not:"^a"}}`, `{"name":{"$not":{"$regex":"^a"}}}`},
		{"$not $not", `{name:{$not:{$not:{$eq:"a"}}}}`, `{"name":{"$not":{"$not":{"$eq":"a"}}}}`},
		{"$and flattened", `{$and:[{name:"a"},{priority:1}]}`, `{"name":"a","priority":1}`},
		{"$and same field", `{$and:[{priority:{$gt:1}},{priority:{$gt:2}}]}`, `{"$and":[{"priority":{"$gt":1}},{"priority":{"$gt":2}}]}`},
		{"$or", `{$or:[{name:"a"},{name:"b"}]}`, `{"$or":[{"name":"a"},{"name":"b"}]}`},
		{"$nor", `{$nor:[{name:"a"}], priority:1}`, `{"$nor":[{"name":"a"}],"priority":1}`},
		{"nested logical", `{$or:[{$and:[{name:"a"},{priority:1}]},{isActive:false}]}`, `{"$or":[{"name":"a","priority":1},{"isActive":false}]}`},
		{"datetime Z", `{createdAt:{$gte:"2026-01-02T03:04:05Z"}}`, `{"createdAt":{"$gte":"2026-01-02T03:04:05.000Z"}}`},
		{"datetime offset", `{createdAt:{$gte:"2026-01-02T03:04:05.5+02:00"}}`, `{"createdAt":{"$gte":"2026-01-02T01:04:05.500Z"}}`},
		{"datetime nanos truncated", `{createdAt:"2026-01-02T03:04:05.123999999Z"}`, `{"createdAt":"2026-01-02T03:04:05.123Z"}`},
		{"datetime date only", `{createdAt:{$lt:"2026-02-01"}}`, `{"createdAt":{"$lt":"2026-02-01T00:00:00.000Z"}}`},
		{"date", `{dueDate:"2024-02-29"}`, `{"dueDate":"2024-02-29"}`},
		{"dotted field", `{"closedStatus.status":"active"}`, `{"closedStatus.status":"active"}`},
		{"dotted unquoted", `{closedStatus.status:{$in:["active"]}}`, `{"closedStatus.status":{"$in":["active"]}}`},
		{"list literal", `{ownerIds:"0b0000000000000000000001"}`, `{"ownerIds":"0b0000000000000000000001"}`},
		{"html chars kept", `{name:"<a&b>"}`, `{"name":"<a&b>"}`},
		{"depth 10", `{$or:[{$or:[{$or:[{$or:[{name:{$eq:"a"}}]}]}]}]}`, `{"$or":[{"$or":[{"$or":[{"$or":[{"name":"a"}]}]}]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ParseFilter(testReg, tt.src)
			if err != nil {
				t.Fatalf("ParseFilter(%s): %v", tt.src, err)
			}
			if got := e.String(); got != tt.want {
				t.Fatalf("ParseFilter(%s) = %s, want %s", tt.src, got, tt.want)
			}
		})
	}
}

func TestParseFilterErrors(t *testing.T) {
	long := `{name:"` + strings.Repeat("x", MaxFilterLen) + `"}`
	deep := strings.Repeat(`{$or:[`, 5) + `{name:"a"}` + strings.Repeat(`]}`, 5)
	var many strings.Builder
	many.WriteString(`{$or:[`)
	for i := range MaxFilterNodes {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`{priority:1}`)
	}
	many.WriteString(`]}`)
	bigIn := `{name:{$in:[` + strings.Repeat(`"a",`, MaxInValues) + `"a"]}}`
	longRe := `{name:{$regex:"` + strings.Repeat("a", MaxRegexLen+1) + `"}}`

	tests := []struct {
		name, src string
		field     string // want Error.Field
		msg       string // want substring of Error.Message
	}{
		// Fields.
		{"unknown field", `{nmae:"x"}`, "nmae", `unknown field "nmae"`},
		{"unknown nested", `{"closedStatus.nope":1}`, "closedStatus.nope", "unknown field"},
		{"object prefix not filterable", `{closedStatus:"x"}`, "closedStatus", "unknown field"},
		{"non-filterable", `{description:"x"}`, "description", `field "description" is not filterable`},
		{"object field", `{metrics:"x"}`, "metrics", "not filterable"},
		// Operators.
		{"$where", `{$where:"this.a==1"}`, "", "operator $where is not supported"},
		{"$expr", `{$expr:{$eq:["$a",1]}}`, "", "operator $expr is not supported"},
		{"$function", `{$function:{}}`, "", "operator $function is not supported"},
		{"$text", `{$text:{$search:"x"}}`, "", "operator $text is not supported"},
		{"top-level $not", `{$not:{name:"a"}}`, "", "operator $not is not supported"},
		{"field $where", `{name:{$where:"1"}}`, "name", "operator $where is not supported"},
		{"$elemMatch", `{ownerIds:{$elemMatch:{$eq:"x"}}}`, "ownerIds", "operator $elemMatch is not supported"},
		{"$size", `{ownerIds:{$size:2}}`, "ownerIds", "operator $size is not supported"},
		{"mixed op and key", `{name:{$eq:"a", b:1}}`, "name", "cannot mix operators"},
		{"literal object", `{name:{a:1}}`, "name", "expects a string, got object"},
		{"empty literal object", `{name:{}}`, "name", "expects a string, got object"},
		// Logical operators.
		{"empty $and", `{$and:[]}`, "", "$and needs a non-empty array"},
		{"empty $or", `{$or:[]}`, "", "$or needs a non-empty array"},
		{"$nor not array", `{$nor:{name:"a"}}`, "", "$nor needs a non-empty array"},
		{"$or element not object", `{$or:["a"]}`, "", "got an element of type string"},
		{"$or empty element", `{$or:[{}]}`, "", "empty filter object"},
		// Value types.
		{"string wants string", `{name:1}`, "name", `"name": $eq expects a string, got number`},
		{"number wants number", `{attainment:"1"}`, "attainment", "expects a number, got string"},
		{"integer wants integral", `{priority:1.5}`, "priority", "expects an integer, got 1.5"},
		{"integer wants number", `{priority:true}`, "priority", "expects an integer, got boolean"},
		{"bool wants bool", `{isActive:"true"}`, "isActive", "expects a boolean, got string"},
		{"bool column wants bool", `{archived:1}`, "archived", "expects a boolean, got number"},
		{"list wants string", `{ownerIds:["a"]}`, "ownerIds", "expects a string, got array"},
		{"$in element type", `{priority:{$in:[1,"2"]}}`, "priority", "$in expects an integer, got string"},
		{"$in not array", `{name:{$in:"a"}}`, "name", "$in expects an array, got string"},
		{"$nin not array", `{name:{$nin:null}}`, "name", "$nin expects an array, got null"},
		{"$in too many", bigIn, "name", "more than 1000 values"},
		{"$gt null", `{attainment:{$gt:null}}`, "attainment", "$gt does not accept null"},
		{"$lte null", `{name:{$lte:null}}`, "name", "$lte does not accept null"},
		{"$exists not bool", `{name:{$exists:1}}`, "name", "$exists expects a boolean"},
		{"$not bad", `{name:{$not:1}}`, "name", "$not expects an operator object or a regular expression"},
		{"$not literal object", `{name:{$not:{a:1}}}`, "name", "$not expects an operator object"},
		{"$not empty", `{name:{$not:{}}}`, "name", "$not expects an operator object"},
		// Dates and ids.
		{"bad datetime", `{createdAt:"yesterday"}`, "createdAt", `invalid date-time "yesterday"`},
		{"datetime no zone", `{createdAt:"2026-01-02T03:04:05"}`, "createdAt", "invalid date-time"},
		{"datetime bad day", `{createdAt:"2026-02-30"}`, "createdAt", "invalid date-time"},
		{"datetime number", `{createdAt:{$gt:1700000000}}`, "createdAt", "expects an RFC 3339 date-time string, got number"},
		{"bad date", `{dueDate:"2026-02-30"}`, "dueDate", `invalid date "2026-02-30" (want yyyy-mm-dd)`},
		{"date with time", `{dueDate:"2026-02-03T00:00:00Z"}`, "dueDate", "invalid date"},
		{"date short", `{dueDate:"2026-2-3"}`, "dueDate", "invalid date"},
		{"bad id short", `{id:"abc"}`, "id", `invalid id "abc"`},
		{"bad id chars", `{_id:"0123456789abcdef0123456g"}`, "id", "invalid id"},
		{"bad id in $in", `{parentId:{$in:["0123456789abcdef01234567","x"]}}`, "parentId", "invalid id"},
		{"empty id", `{parentId:""}`, "parentId", "invalid id"},
		// Regexes.
		{"bad regex", `{name:{$regex:"a("}}`, "name", "invalid regular expression"},
		{"perl lookahead", `{name:{$regex:"(?=a)"}}`, "name", "invalid regular expression"},
		{"regex not string", `{name:{$regex:1}}`, "name", "$regex expects a string"},
		{"regex on number", `{attainment:{$regex:"1"}}`, "attainment", "$regex needs a string field"},
		{"regex on bool", `{isActive:{$not:"t"}}`, "isActive", "$regex needs a string field"},
		{"bad options", `{name:{$regex:"a",$options:"m"}}`, "name", `$options supports only "i"`},
		{"options not string", `{name:{$regex:"a",$options:1}}`, "name", `$options supports only "i"`},
		{"options alone", `{name:{$options:"i"}}`, "name", "$options needs a sibling $regex"},
		{"regex too long", longRe, "name", "longer than 1000 bytes"},
		// Limits.
		{"too long", long, "", "longer than 16384 bytes"},
		{"too deep", deep, "", "nested deeper than 10 levels"},
		{"too deep arrays", strings.Repeat("[", 20), "", "nested deeper than 10 levels"},
		{"too many nodes", many.String(), "", "more than 500 conditions"},
		// Malformed JSON.
		{"not object", `["a"]`, "", "filter must be a JSON object, got array"},
		{"string", `"a"`, "", "must be a JSON object, got string"},
		{"unterminated object", `{name:"a"`, "", "syntax error"},
		{"unterminated string", `{name:"a}`, "", "unterminated string"},
		{"missing colon", `{name "a"}`, "", "want ':'"},
		{"missing value", `{name:}`, "", "want a value"},
		{"trailing comma", `{name:"a",}`, "", "want a key"},
		{"trailing comma array", `{name:{$in:["a",]}}`, "", "want a value"},
		{"bare word value", `{name:alpha}`, "", `unexpected word "alpha"`},
		{"garbage after", `{name:"a"} x`, "", "after the end of the filter"},
		{"two objects", `{}{}`, "", "after the end"},
		{"duplicate key", `{name:"a", name:"b"}`, "name", "duplicate key"},
		{"duplicate operator", `{attainment:{$gt:1, $gt:2}}`, "", `duplicate key "$gt"`},
		{"leading zero", `{priority:01}`, "", "leading zero"},
		{"bad fraction", `{priority:1.}`, "", "want digits after '.'"},
		{"bad exponent", `{priority:1e}`, "", "want digits in exponent"},
		{"huge number", `{attainment:1e999}`, "", "out of range"},
		{"plus sign", `{priority:+1}`, "", "want a value"},
		{"NaN", `{attainment:NaN}`, "", `unexpected word "NaN"`},
		{"bad escape", `{name:"\x"}`, "", "invalid escape"},
		{"bad unicode escape", `{name:"\u12"}`, "", `invalid \u escape`},
		{"control char", "{name:\"a\tb\"}", "", "control character"},
		{"invalid utf8", "{name:\"\xff\"}", "", "not valid UTF-8"},
		{"comment", `{/* x */ name:"a"}`, "", "want a key"},
		{"key starting with digit", `{1name:"a"}`, "", "want a key"},
		{"only open", `{`, "", "unexpected end of input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ParseFilter(testReg, tt.src)
			if err == nil {
				t.Fatalf("ParseFilter(%.80s) = %s, want error", tt.src, e)
			}
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if qe.Param != "filter" {
				t.Errorf("Param = %q, want filter", qe.Param)
			}
			if qe.Field != tt.field {
				t.Errorf("Field = %q, want %q (%v)", qe.Field, tt.field, err)
			}
			if !strings.Contains(qe.Message, tt.msg) {
				t.Errorf("Message = %q, want it to contain %q", qe.Message, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "invalid filter: ") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestParseFilterNilRegistry(t *testing.T) {
	if e, err := ParseFilter(nil, ""); e != nil || err != nil {
		t.Fatalf("ParseFilter(nil, \"\") = %v, %v", e, err)
	}
	if _, err := ParseFilter(nil, `{name:"a"}`); err == nil {
		t.Fatal("ParseFilter(nil, filter) succeeded")
	}
}

// sampleDoc is the document the Match table is evaluated on.
func sampleDoc() map[string]any {
	return map[string]any{
		"id":           "0123456789abcdef01234567",
		"accountId":    "a00000000000000000000001",
		"parentId":     nil,
		"archived":     false,
		"name":         "Beta",
		"attainment":   0.75,
		"priority":     2.0,
		"isActive":     true,
		"createdAt":    "2026-01-02T03:04:05.123Z",
		"dueDate":      "2026-03-01",
		"ownerIds":     []any{"0b0000000000000000000001", "0b0000000000000000000003"},
		"tags":         []any{},
		"sessionId":    nil,
		"closedStatus": map[string]any{"status": "achieved"},
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		// String.
		{`{name:"Beta"}`, true}, {`{name:"beta"}`, false},
		{`{name:{$ne:"Beta"}}`, false}, {`{name:{$ne:"x"}}`, true},
		{`{name:{$gt:"Alpha"}}`, true}, {`{name:{$gt:"Beta"}}`, false}, {`{name:{$gte:"Beta"}}`, true},
		{`{name:{$lt:"b"}}`, true}, {`{name:{$lte:"Beta"}}`, true}, {`{name:{$lt:"Beta"}}`, false},
		{`{name:{$in:["a","Beta"]}}`, true}, {`{name:{$in:["a"]}}`, false}, {`{name:{$in:[]}}`, false},
		{`{name:{$nin:["a","Beta"]}}`, false}, {`{name:{$nin:["a"]}}`, true}, {`{name:{$nin:[]}}`, true},
		{`{name:{$regex:"^B"}}`, true}, {`{name:{$regex:"^b"}}`, false}, {`{name:{$regex:"^b",$options:"i"}}`, true},
		{`{name:{$not:"^b"}}`, true}, {`{name:{$not:{$regex:"^b",$options:"i"}}}`, false},
		{`{name:{$exists:true}}`, true}, {`{name:{$exists:false}}`, false},
		{`{name:null}`, false}, {`{name:{$ne:null}}`, true},
		// Missing string field (description is not filterable, so use
		// closedStatus.status on a doc variant below) and null field.
		{`{sessionId:null}`, true}, {`{sessionId:{$exists:true}}`, true}, {`{sessionId:{$ne:null}}`, false},
		{`{sessionId:{$ne:"5e0000000000000000000001"}}`, true}, {`{sessionId:{$gt:"000000000000000000000000"}}`, false},
		{`{sessionId:{$nin:["5e0000000000000000000001"]}}`, true}, {`{sessionId:{$in:[null]}}`, true},
		{`{sessionId:{$not:{$gt:"000000000000000000000000"}}}`, true}, {`{sessionId:{$regex:""}}`, false},
		// Number and Integer.
		{`{attainment:0.75}`, true}, {`{attainment:{$gt:0.5,$lt:1}}`, true}, {`{attainment:{$gte:0.76}}`, false},
		{`{attainment:{$lte:0.75}}`, true}, {`{attainment:{$ne:0.75}}`, false}, {`{attainment:{$in:[1,0.75]}}`, true},
		{`{attainment:{$nin:[1,0.75]}}`, false}, {`{attainment:{$not:{$gt:1}}}`, true},
		{`{priority:2}`, true}, {`{priority:{$gt:1}}`, true}, {`{priority:{$lt:2}}`, false}, {`{priority:{$in:[0,1]}}`, false},
		// Bool.
		{`{isActive:true}`, true}, {`{isActive:false}`, false}, {`{isActive:{$ne:false}}`, true},
		{`{isActive:{$gt:false}}`, true}, {`{isActive:{$lt:true}}`, false}, {`{isActive:{$in:[false]}}`, false},
		{`{archived:false}`, true}, {`{archived:{$exists:true}}`, true},
		// Column field holding null: $exists tests for a non-null value.
		{`{parentId:null}`, true}, {`{parentId:{$exists:false}}`, true}, {`{parentId:{$exists:true}}`, false},
		// DateTime, compared after normalisation.
		{`{createdAt:"2026-01-02T03:04:05.123Z"}`, true}, {`{createdAt:"2026-01-02T04:04:05.123+01:00"}`, true},
		{`{createdAt:{$gt:"2026-01-02"}}`, true}, {`{createdAt:{$lt:"2026-01-02T03:04:05.124Z"}}`, true},
		{`{createdAt:{$lt:"2026-01-02T03:04:05.123999Z"}}`, false}, {`{createdAt:{$gte:"2026-01-03"}}`, false},
		{`{createdAt:{$regex:"^2026-01"}}`, true},
		// Date.
		{`{dueDate:"2026-03-01"}`, true}, {`{dueDate:{$gt:"2026-02-28"}}`, true}, {`{dueDate:{$lt:"2026-03-01"}}`, false},
		{`{dueDate:{$in:["2026-03-01"]}}`, true}, {`{dueDate:{$regex:"-03-"}}`, true},
		// ID.
		{`{id:"0123456789ABCDEF01234567"}`, true}, {`{_id:{$in:["0123456789abcdef01234567"]}}`, true},
		{`{id:{$gt:"0123456789abcdef01234566"}}`, true}, {`{accountId:{$ne:"a00000000000000000000001"}}`, false},
		// StringList: any element / no element.
		{`{ownerIds:"0b0000000000000000000001"}`, true}, {`{ownerIds:"0b0000000000000000000002"}`, false},
		{`{ownerIds:{$ne:"0b0000000000000000000001"}}`, false}, {`{ownerIds:{$ne:"0b0000000000000000000002"}}`, true},
		{`{ownerIds:{$in:["0b0000000000000000000002","0b0000000000000000000003"]}}`, true},
		{`{ownerIds:{$nin:["0b0000000000000000000002","0b0000000000000000000003"]}}`, false},
		{`{ownerIds:{$nin:["0b0000000000000000000002"]}}`, true},
		{`{ownerIds:{$gt:"0b0000000000000000000002"}}`, true}, {`{ownerIds:{$gt:"0b0000000000000000000003"}}`, false},
		{`{ownerIds:{$regex:"3$"}}`, true}, {`{ownerIds:{$not:{$regex:"3$"}}}`, false},
		{`{ownerIds:null}`, false}, {`{ownerIds:{$exists:true}}`, true},
		{`{tags:"x"}`, false}, {`{tags:{$ne:"x"}}`, true}, {`{tags:null}`, false}, {`{tags:{$regex:""}}`, false},
		// Dotted field.
		{`{"closedStatus.status":"achieved"}`, true}, {`{"closedStatus.status":{$in:["active"]}}`, false},
		{`{"closedStatus.status":{$exists:true}}`, true},
		// Logical.
		{`{$or:[{name:"x"},{priority:2}]}`, true}, {`{$or:[{name:"x"},{priority:3}]}`, false},
		{`{$and:[{name:"Beta"},{priority:2}]}`, true}, {`{$and:[{name:"Beta"},{priority:3}]}`, false},
		{`{$nor:[{name:"x"},{priority:3}]}`, true}, {`{$nor:[{name:"x"},{priority:2}]}`, false},
		{`{name:"Beta", priority:3}`, false},
		{`{}`, true},
	}
	doc := sampleDoc()
	for _, tt := range tests {
		e, err := ParseFilter(testReg, tt.src)
		if err != nil {
			t.Errorf("ParseFilter(%s): %v", tt.src, err)
			continue
		}
		if got := e.Match(doc); got != tt.want {
			t.Errorf("%s.Match(sample) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestMatchMissing(t *testing.T) {
	doc := map[string]any{"id": "0123456789abcdef01234567"} // every other field missing
	tests := []struct {
		src  string
		want bool
	}{
		{`{name:null}`, true}, {`{name:{$ne:null}}`, false}, {`{name:{$ne:"a"}}`, true},
		{`{name:{$exists:false}}`, true}, {`{name:{$exists:true}}`, false},
		{`{name:{$gt:""}}`, false}, {`{name:{$lte:"zzz"}}`, false}, {`{name:{$regex:""}}`, false},
		{`{name:{$not:{$regex:""}}}`, true}, {`{name:{$in:["a"]}}`, false}, {`{name:{$in:["a",null]}}`, true},
		{`{name:{$nin:["a"]}}`, true}, {`{name:{$nin:[null]}}`, false},
		{`{ownerIds:"0b0000000000000000000001"}`, false}, {`{ownerIds:{$ne:"0b0000000000000000000001"}}`, true},
		{`{ownerIds:null}`, true}, {`{"closedStatus.status":null}`, true}, {`{"closedStatus.status":{$exists:false}}`, true},
		{`{parentId:{$exists:false}}`, true}, {`{isActive:{$ne:true}}`, true},
	}
	for _, tt := range tests {
		e, err := ParseFilter(testReg, tt.src)
		if err != nil {
			t.Errorf("ParseFilter(%s): %v", tt.src, err)
			continue
		}
		if got := e.Match(doc); got != tt.want {
			t.Errorf("%s.Match(missing) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestConstructors(t *testing.T) {
	doc := sampleDoc()
	tests := []struct {
		e      *Expr
		str    string
		match  bool
		sqlite string
	}{
		{nil, `{}`, true, `1=1`},
		{Eq("name", "Beta"), `{"name":"Beta"}`, true, `(json_extract(doc, '$.name') = ?)`},
		{Eq("_id", "0123456789abcdef01234567"), `{"id":"0123456789abcdef01234567"}`, true, `(id = ?)`},
		{Eq("parentId", nil), `{"parentId":null}`, true, `(parent_id IS NULL)`},
		{Eq("priority", 2), `{"priority":2}`, true, `(json_extract(doc, '$.priority') = ?)`},
		{In("id", "0123456789abcdef01234567", "x"), `{"id":{"$in":["0123456789abcdef01234567","x"]}}`, true, `(id IN (?, ?))`},
		{In("id"), `{"id":{"$in":[]}}`, false, `1=0`},
		{In("ownerIds", "0b0000000000000000000003"), `{"ownerIds":{"$in":["0b0000000000000000000003"]}}`, true,
			`EXISTS (SELECT 1 FROM json_each(doc, '$.ownerIds') WHERE (value IN (?)))`},
		{Eq("nosuch", "x"), `{"nosuch":"x"}`, false, `1=0`},
		{And(), `{}`, true, `1=1`},
		{And(nil, Eq("name", "Beta"), nil), `{"name":"Beta"}`, true, `(json_extract(doc, '$.name') = ?)`},
		{And(Eq("name", "Beta"), And(In("priority", 1, 2), Eq("isActive", true))), `{"name":"Beta","priority":{"$in":[1,2]},"isActive":true}`, true,
			`((json_extract(doc, '$.name') = ?) AND (json_extract(doc, '$.priority') IN (?, ?)) AND (json_extract(doc, '$.isActive') = ?))`},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.str {
			t.Errorf("String() = %s, want %s", got, tt.str)
		}
		if got := tt.e.Match(doc); got != tt.match {
			t.Errorf("%s.Match = %v, want %v", tt.str, got, tt.match)
		}
		if got, _ := tt.e.SQL(SQLite, testReg, "doc", 0); got != tt.sqlite {
			t.Errorf("%s.SQL = %s, want %s", tt.str, got, tt.sqlite)
		}
	}
	// Booleans bind as 1/0 in SQLite and as bool in Postgres.
	_, args := Eq("isActive", true).SQL(SQLite, testReg, "doc", 0)
	if len(args) != 1 || args[0] != int64(1) {
		t.Errorf("SQLite bool args = %#v, want [1]", args)
	}
	_, args = Eq("isActive", true).SQL(Postgres, testReg, "doc", 0)
	if len(args) != 1 || args[0] != true {
		t.Errorf("Postgres bool args = %#v, want [true]", args)
	}
}
