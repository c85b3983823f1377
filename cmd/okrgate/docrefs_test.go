package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// docRef is a reference to a section of a doc, docs/<path>.md followed by
// the section's title in quotes: `docs/decisions/storage.md, "SQLite"`,
// `docs/graphql.md ("Limits")`, `docs/graphql.md's "Limits"`.
var docRef = regexp.MustCompile(`^docs/([\w./-]+\.md)(?:'s)?(?:,\s*|\s*\(\s*|\s+)"([^"]+)"`)

// docPath is a doc's path, docs/<path>.md.
var docPath = regexp.MustCompile(`^docs/([\w./-]+\.md)\b`)

// continuation joins a comment or text that goes on on the next line.
var continuation = regexp.MustCompile(`[ \t]*\n[ \t]*(?://|#)?[ \t]*`)

// heading is a Markdown heading or a bold lead-in, the two forms a cited
// section takes in the docs.
var heading = regexp.MustCompile(`(?m)^#{1,4} (.+)$|\*\*([^*]+)\*\*`)

// skipDirs are directories of files the repository does not hold: npm's
// packages and what the TypeScript clients' build generates from the
// served schema (.ci/clients/ts/.gitignore), which quotes its descriptions
// as they were when it ran.
var skipDirs = map[string]bool{"node_modules": true, "dist": true, "generated": true, "testdata": true}

// sourceExt are the kinds of files whose comments and texts cite docs.
var sourceExt = map[string]bool{".go": true, ".md": true, ".graphqls": true, ".yml": true, ".sh": true}

// TestDocReferences: every path docs/<path>.md in the repository's Go,
// Markdown, schema, YAML and CI files names a doc that exists, and every
// title quoted after such a path begins a heading (or bold lead-in) of that
// doc, so a doc split or a renamed section cannot leave a reference behind.
func TestDocReferences(t *testing.T) {
	const root = "../.."
	titles := map[string][]string{} // doc path -> normalized headings; nil when missing
	headingsOf := func(doc string) []string {
		if h, ok := titles[doc]; ok {
			return h
		}
		b, err := os.ReadFile(filepath.Join(root, "docs", doc))
		if err != nil {
			titles[doc] = nil
			return nil
		}
		h := []string{}
		for _, m := range heading.FindAllStringSubmatch(string(b), -1) {
			h = append(h, normTitle(m[1]+m[2]))
		}
		titles[doc] = h
		return h
	}
	var bad []string
	refs := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" || skipDirs[d.Name()]) {
				return filepath.SkipDir
			}
			return nil
		}
		if !sourceExt[filepath.Ext(path)] && !strings.Contains(path, "/.ci/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(b)
		for i := strings.Index(s, "docs/"); i >= 0; i = next(s, i) {
			if i > 0 && (isWord(s[i-1]) || strings.IndexByte("/.-_", s[i-1]) >= 0) {
				continue // another path's docs/, a URL's
			}
			p := docPath.FindStringSubmatch(s[i:min(len(s), i+200)])
			if p == nil {
				continue
			}
			if headingsOf(p[1]) == nil {
				bad = append(bad, path+": docs/"+p[1]+" does not exist")
				continue
			}
			// A title fits in the few lines after its path.
			m := docRef.FindStringSubmatch(continuation.ReplaceAllString(s[i:min(len(s), i+400)], " "))
			if m == nil {
				continue
			}
			refs++
			doc, title := m[1], normTitle(m[2])
			if !slices.ContainsFunc(headingsOf(doc), func(h string) bool { return strings.HasPrefix(h, title) }) {
				bad = append(bad, path+": docs/"+doc+` has no section "`+m[2]+`"`)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if refs == 0 {
		t.Fatal("no references to sections of docs found: the pattern is wrong")
	}
	sort.Strings(bad)
	for _, s := range bad {
		t.Error(s)
	}
}

// isWord reports whether c is a letter or digit of ASCII.
func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// next is the index of the next "docs/" in s after the one at i, or -1.
func next(s string, i int) int {
	j := strings.Index(s[i+1:], "docs/")
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// normTitle drops the code marks and the spacing a title may differ in
// between a heading and a reference to it.
func normTitle(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "`", "")), " ")
}
