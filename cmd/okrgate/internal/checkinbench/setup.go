package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// setup makes a session and the goals of shape (flat, chain or tree; see
// the package comment) and returns the ids of the 16 key results the
// writers check in on.
func setup(c client, shape string, depth, treeSize int) ([]string, error) {
	var ss struct{ ID string }
	if _, err := c.post("/api/v1/sessions", map[string]any{"title": "Q1", "start": "2026-01-01", "end": "2026-03-31"}, &ss); err != nil {
		return nil, err
	}
	goal := func(name, parent string) (string, error) {
		var g struct{ ID string }
		_, err := c.post("/api/v1/goals", map[string]any{"name": name, "sessionId": ss.ID, "parentId": parent}, &g)
		return g.ID, err
	}
	metric := func(name, goal string) (string, error) {
		var m struct{ ID string }
		_, err := c.post("/api/v1/metrics", map[string]any{"name": name, "goalId": goal, "target": 100}, &m)
		return m.ID, err
	}
	var leaf string
	switch shape {
	case "flat":
		depth = 1
		fallthrough
	case "chain":
		for i := range depth {
			id, err := goal(fmt.Sprint("g", i), leaf)
			if err != nil {
				return nil, err
			}
			leaf = id
		}
	case "tree":
		// Objective i's parent is objective (i-1)/6: six children each,
		// breadth first; each has one key result of its own.
		ids := make([]string, treeSize)
		for i := range treeSize {
			parent := ""
			if i > 0 {
				parent = ids[(i-1)/6]
			}
			id, err := goal(fmt.Sprint("g", i), parent)
			if err != nil {
				return nil, err
			}
			ids[i] = id
			if _, err := metric(fmt.Sprint("own", i), id); err != nil {
				return nil, err
			}
		}
		leaf = ids[treeSize-1]
	}
	var krs []string
	for i := range 16 {
		id, err := metric(fmt.Sprint("kr", i), leaf)
		if err != nil {
			return nil, err
		}
		krs = append(krs, id)
	}
	return krs, nil
}

type client struct {
	hc                   *http.Client
	base, token, account string
}

// post sends body as JSON and decodes a 2xx answer into dst (if not nil).
func (c client) post(path string, body, dst any) (int, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", c.base+path, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("service-accountId", c.account)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		if dst != nil {
			return res.StatusCode, fmt.Errorf("POST %s: %d %s", path, res.StatusCode, raw)
		}
		return res.StatusCode, nil
	}
	if dst != nil {
		return res.StatusCode, json.Unmarshal(raw, dst)
	}
	return res.StatusCode, nil
}
