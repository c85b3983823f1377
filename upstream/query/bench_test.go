package query

import "testing"

// typicalFilter is a filter a list page of the frontend sends.
const typicalFilter = `{sessionId:{$in:["5e0000000000000000000001","5e0000000000000000000002"]}, ownerIds:"0b0000000000000000000001",` +
	` "closedStatus.status":{$ne:"abandoned"}, name:{$regex:"growth",$options:"i"}, createdAt:{$gte:"2026-01-01"}}`

func BenchmarkParseFilterSQL(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		e, err := ParseFilter(testReg, typicalFilter)
		if err != nil {
			b.Fatal(err)
		}
		e.SQL(SQLite, testReg, "doc", 0)
	}
}

// BenchmarkParseFilter is the baseline BenchmarkParseFilterSQL is read
// against: the share of the time spent compiling SQL is the difference.
func BenchmarkParseFilter(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFilter(testReg, typicalFilter); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	e, err := ParseFilter(testReg, typicalFilter)
	if err != nil {
		b.Fatal(err)
	}
	doc := sampleDoc()
	b.ReportAllocs()
	for b.Loop() {
		e.Match(doc)
	}
}
