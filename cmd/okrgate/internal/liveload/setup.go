package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// world is what setUp made: the users with their tokens and class, the
// chain of goals, the private one among them, and the leaf's key result.
type world struct {
	base, account, admin string
	hc                   *http.Client
	session              string
	chain                []string // root first
	private              string   // the goal on the chain only team members may read
	kr                   string
	users                []user
}

type user struct {
	token  string
	member bool // in the team that owns the private goal
}

// call sends a REST request as token and decodes the JSON answer into out;
// it retries an answer of 503 (the server sheds load) a few times.
func (w *world) call(ctx context.Context, token, method, path string, body, out any, want int) error {
	for range 100 {
		err := w.callOnce(ctx, token, method, path, body, out, want)
		if !errors.Is(err, errOverloaded) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s %s: still 503 after 100 tries", method, path)
}

var errOverloaded = errors.New("503")

func (w *world) callOnce(ctx context.Context, token, method, path string, body, out any, want int) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("service-accountId", w.account)
	resp, err := w.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusServiceUnavailable && want != http.StatusServiceUnavailable {
		return errOverloaded
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

type idOf struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

// setUp creates n users (even: members of a team, odd: viewers) with a
// token each, the team, a session and a 6-deep chain whose third goal is
// private and owned by the team, and a key result on the leaf.
func setUp(ctx context.Context, base, account, admin string, n int) (*world, error) {
	w := &world{base: base, account: account, admin: admin, hc: &http.Client{Timeout: 30 * time.Second}}
	var roles struct {
		Items []struct{ ID, Name string } `json:"items"`
	}
	if err := w.call(ctx, admin, "GET", "/api/v2/roles?limit=100", nil, &roles, 200); err != nil {
		return nil, err
	}
	roleID := map[string]string{}
	for _, r := range roles.Items {
		roleID[r.Name] = r.ID
	}
	w.users = make([]user, n)
	ids := make([]string, n)
	errs := make(chan error, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				role := "viewer"
				if i%2 == 0 {
					role = "member"
				}
				var u, tok idOf
				if err := w.call(ctx, admin, "POST", "/api/v2/users", map[string]any{
					"email": fmt.Sprintf("u%d@live.test", i), "firstName": fmt.Sprintf("U%d", i), "roleIds": []string{roleID[role]},
				}, &u, 201); err != nil {
					errs <- err
					continue
				}
				if err := w.call(ctx, admin, "POST", "/api/v2/users/"+u.ID+"/tokens", nil, &tok, 201); err != nil {
					errs <- err
					continue
				}
				ids[i] = u.ID
				w.users[i] = user{token: tok.Token, member: role == "member"}
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, fmt.Errorf("create users: %w", err)
	}
	var members []string
	for i, u := range w.users {
		if u.member {
			members = append(members, ids[i])
		}
	}
	var team, sess idOf
	if err := w.call(ctx, admin, "POST", "/api/v1/teams", map[string]any{"name": "Planning", "members": members}, &team, 201); err != nil {
		return nil, err
	}
	if err := w.call(ctx, admin, "POST", "/api/v1/sessions", map[string]any{"title": "Q1 2027", "start": "2027-01-01", "end": "2027-03-31"}, &sess, 201); err != nil {
		return nil, err
	}
	w.session = sess.ID
	parent := ""
	for i := range 6 {
		in := map[string]any{"name": fmt.Sprintf("Level %d", i+1), "sessionId": sess.ID, "attainmentTypeString": "average_children"}
		if i == 5 {
			in["attainmentTypeString"] = "average_kr"
		}
		if parent != "" {
			in["parentId"] = parent
		}
		if i == 2 {
			in["private"] = true
			in["ownerIds"] = []string{team.ID}
		}
		var g idOf
		if err := w.call(ctx, admin, "POST", "/api/v1/goals", in, &g, 201); err != nil {
			return nil, err
		}
		parent = g.ID
		w.chain = append(w.chain, g.ID)
		if i == 2 {
			w.private = g.ID
		}
	}
	var kr idOf
	if err := w.call(ctx, admin, "POST", "/api/v1/metrics", map[string]any{"name": "Revenue", "goalId": parent, "initialValue": 0, "target": 1000, "targetOperator": "at_least"}, &kr, 201); err != nil {
		return nil, err
	}
	w.kr = kr.ID
	return w, nil
}

// expected is how many of a check-in's goal updates a subscriber may read:
// the whole chain for a team member, all but the private goal for a viewer.
func (w *world) expected(u user) int {
	if u.member {
		return len(w.chain)
	}
	return len(w.chain) - 1
}
