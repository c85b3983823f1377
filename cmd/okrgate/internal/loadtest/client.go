package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

func jsonUnmarshal(b []byte, dst any) error {
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("decode %q: %w", b, err)
	}
	return nil
}

// dataset is what the clients of one account pick from.
type dataset struct {
	sessions, goals, metrics []string
}

type client struct {
	hc                *http.Client
	base, token, acct string
}

func (c client) request(method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("service-accountId", c.acct)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.hc.Do(req)
}

func (c client) json(method, path string, body, dst any) error {
	res, err := c.request(method, path, body)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, dst)
}

// tokens makes n tokens of c's user, for n clients.
func (c client) tokens(n int) ([]client, error) {
	out := make([]client, n)
	for i := range out {
		var t struct{ Token string }
		if err := c.json("POST", "/api/v2/users/me/tokens", map[string]any{"name": fmt.Sprint("load ", i)}, &t); err != nil {
			return nil, fmt.Errorf("token %d: %w", i, err)
		}
		out[i] = c
		out[i].token = t.Token
	}
	return out, nil
}

func (c client) dataset() (dataset, error) {
	var d dataset
	var page struct{ Items []struct{ ID string } }
	if err := c.json("GET", "/api/v2/sessions?limit=100", nil, &page); err != nil {
		return d, err
	}
	for _, it := range page.Items {
		d.sessions = append(d.sessions, it.ID)
	}
	page.Items = nil
	if err := c.json("GET", "/api/v2/integrations/goals?limit=1000&fields=id", nil, &page); err != nil {
		return d, err
	}
	for _, it := range page.Items {
		d.goals = append(d.goals, it.ID)
	}
	page.Items = nil
	if err := c.json("GET", "/api/v2/metrics?limit=1000", nil, &page); err != nil {
		return d, err
	}
	for _, it := range page.Items {
		d.metrics = append(d.metrics, it.ID)
	}
	if len(d.sessions) == 0 || len(d.goals) == 0 || len(d.metrics) == 0 {
		return d, fmt.Errorf("seeded dataset is empty: %d sessions, %d goals, %d key results", len(d.sessions), len(d.goals), len(d.metrics))
	}
	return d, nil
}

// treeQuery is the README's session tree: root goals with owners, key
// results and check-ins, children and grandchildren.
const treeQuery = `query Tree($id: ID!) { session(id: $id) { id title goals(roots: true) { ...G children { ...G children { ...G } } } } }
fragment G on Goal { id name attainment owners { ... on User { id name } ... on Team { id name } } metrics { id name attainment checkins { id actual } } }`

// Kinds of request.
const (
	kindPage  = "REST goals page"
	kindGoal  = "REST goal"
	kindTree  = "GraphQL tree"
	kindWrite = "REST check-in (write)"
)

// outcome is one request's answer.
type outcome struct {
	kind       string
	status     int // 0: no answer (connection error)
	dur        time.Duration
	retryAfter time.Duration // of a 429 or 503
}

// send sends one request of the kind.
func (c client) send(kind string, rng *rand.Rand, d dataset) outcome {
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	var method, path string
	var body any
	switch kind {
	case kindPage:
		method, path = "GET", fmt.Sprintf("/api/v2/integrations/goals?limit=20&skip=%d&fields=name,attainment,ownerIds", rng.IntN(len(d.goals)))
	case kindGoal:
		method, path = "GET", "/api/v1/goals/"+pick(d.goals)
	case kindTree:
		method, path = "POST", "/graphql"
		body = map[string]any{"query": treeQuery, "variables": map[string]any{"id": pick(d.sessions)}}
	default:
		method, path = "POST", "/api/v1/metrics/"+pick(d.metrics)+"/checkin"
		body = map[string]any{"actual": rng.IntN(100)}
	}
	start := time.Now()
	res, err := c.request(method, path, body)
	if err != nil {
		return outcome{kind: kind, dur: time.Since(start)}
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	o := outcome{kind: kind, status: res.StatusCode, dur: time.Since(start)}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil {
		o.retryAfter = time.Duration(s) * time.Second
	}
	return o
}

// mixed picks a request of the mix: 40% REST goal pages, 20% single
// goals, 25% GraphQL session trees, 15% check-ins (writes).
func mixed(rng *rand.Rand) string {
	switch p := rng.IntN(100); {
	case p < 40:
		return kindPage
	case p < 60:
		return kindGoal
	case p < 85:
		return kindTree
	}
	return kindWrite
}
