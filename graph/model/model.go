// Package model holds the Go types of the GraphQL schema that are not
// upstream types: custom scalars, union markers, connection and payload
// models (models_gen.go, generated) and the orderBy input.
package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/okrgate/okrgate/upstream"
)

// Owner is a user or a team: upstream.User or upstream.Team (or pointers to them).
type Owner interface{}

// Node is any object with a global id (the types implementing the GraphQL
// Node interface): an upstream resource value or a pointer to one.
type Node interface{}

// TaskParent is the parent of a task: upstream.Goal or upstream.Metric.
type TaskParent interface{}

// Order is one orderBy key of a connection.
type Order struct {
	Field     string `json:"field"`
	Direction string `json:"direction"`
}

// MarshalDate writes a yyyy-mm-dd date; the empty string is null.
func MarshalDate(s string) graphql.Marshaler { return nullableString(s) }

// UnmarshalDate accepts a yyyy-mm-dd date.
func UnmarshalDate(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", errors.New("a Date must be a yyyy-mm-dd string")
	}
	return upstream.ParseDate("Date", s)
}

// MarshalDateTime writes an RFC 3339 timestamp; the empty string is null.
func MarshalDateTime(s string) graphql.Marshaler { return nullableString(s) }

// UnmarshalDateTime accepts an RFC 3339 timestamp (or a yyyy-mm-dd date,
// meaning midnight UTC) and normalises it to UTC with milliseconds.
func UnmarshalDateTime(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("DateTime must be an RFC 3339 string")
	}
	return upstream.ParseTime("DateTime", s)
}

func nullableString(s string) graphql.Marshaler {
	if s == "" {
		return graphql.Null
	}
	return graphql.WriterFunc(func(w io.Writer) { io.WriteString(w, strconv.Quote(s)) })
}

// MarshalJSON writes any value as JSON (its REST shape).
func MarshalJSON(v any) graphql.Marshaler {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return graphql.Null
	}
	return graphql.WriterFunc(func(w io.Writer) { w.Write(b) })
}

// UnmarshalJSON accepts any JSON value.
func UnmarshalJSON(v any) (any, error) { return v, nil }

// BadgeHolders are the holders of one badge. Loaded through Badge.holders,
// AssigneeIDs are the distinct ids named by its approved assignments (users
// and teams, in id order) and the users and teams load by them; from
// badgeHolders(id) (upstream BadgeAssignees) Users and Teams are given and
// Preloaded is set.
type BadgeHolders struct {
	BadgeID     string
	AssigneeIDs []string
	Preloaded   bool
	Users       []upstream.User
	Teams       []upstream.Team
}
