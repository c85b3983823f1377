package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// Accounts.

// ownAccount loads the caller's account; another id is not found.
func (s *Store) ownAccount(ctx context.Context, q querier, c upstream.Caller, id string) (upstream.Account, error) {
	if id != c.AccountID {
		return upstream.Account{}, upstream.NotFound("account", id)
	}
	return s.account(ctx, q, id)
}

func (s *Store) saveAccount(ctx context.Context, q querier, a upstream.Account) error {
	doc, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, "UPDATE accounts SET doc = ? WHERE id = ?", string(doc), a.ID); err != nil {
		return fmt.Errorf("sqlstore: update account: %w", err)
	}
	return nil
}

// GetAccount returns the caller's account.
func (s *Store) GetAccount(ctx context.Context, id string) (upstream.Account, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Account{}, err
	}
	q := s.read()
	a, err := s.ownAccount(ctx, q, c, id)
	if err != nil {
		return upstream.Account{}, err
	}
	return a, s.authorize(ctx, q, c, upstream.AccountRead, nil)
}

var domainRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// UpdateAccount changes the caller's account name, domain, language and settings.
func (s *Store) UpdateAccount(ctx context.Context, id string, in upstream.AccountPatch) (upstream.Account, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Account{}, err
	}
	var a upstream.Account
	err = s.tx(ctx, func(q querier) error {
		if a, err = s.ownAccount(ctx, q, c, id); err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.AccountManage, nil); err != nil {
			return err
		}
		set(&a.Name, in.AccountName, strings.TrimSpace)
		set(&a.Language, in.Language, strings.TrimSpace)
		set(&a.Settings, in.Settings, nil)
		if a.Name == "" {
			return upstream.Invalid("accountName", "must not be empty")
		}
		if in.Domain != nil && *in.Domain != a.Domain {
			d := strings.ToLower(strings.TrimSpace(*in.Domain))
			if !domainRE.MatchString(d) {
				return upstream.Invalid("domain", "%q is not a domain label (a-z, 0-9, -)", *in.Domain)
			}
			free, err := s.domainFree(ctx, q, a.ID, d)
			if err != nil {
				return err
			}
			if !free {
				return upstream.Errorf(upstream.CodeConflict, "the domain %q is taken", d)
			}
			a.Domain = d
		}
		return s.saveAccount(ctx, q, a)
	})
	return a, err
}

func (s *Store) domainFree(ctx context.Context, q querier, except, domain string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM accounts WHERE id <> ? AND "+dialectOf(q).text("doc", "domain")+" = ?", except, domain).Scan(&n)
	return n == 0, err
}

// CheckAccountDomain says whether a name and domain are free for the caller's account.
func (s *Store) CheckAccountDomain(ctx context.Context, in upstream.DomainCheck) (upstream.DomainAvailability, error) {
	q, c, err := s.readAs(ctx, upstream.AccountManage)
	if err != nil {
		return upstream.DomainAvailability{}, err
	}
	var out upstream.DomainAvailability
	if name := strings.TrimSpace(in.AccountName); name != "" {
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM accounts WHERE id <> ? AND lower("+dialectOf(q).text("doc", "name")+") = lower(?)", c.AccountID, name).Scan(&n); err != nil {
			return out, fmt.Errorf("sqlstore: check name: %w", err)
		}
		out.AccountNameAvailable = n == 0
	}
	if d := strings.ToLower(strings.TrimSpace(in.Domain)); d != "" {
		if !domainRE.MatchString(d) {
			return out, upstream.Invalid("domain", "%q is not a domain label (a-z, 0-9, -)", in.Domain)
		}
		if out.DomainAvailable, err = s.domainFree(ctx, q, c.AccountID, d); err != nil {
			return out, err
		}
	}
	return out, nil
}

var colorRE = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// SetConfidenceSettings replaces the account's confidence settings.
func (s *Store) SetConfidenceSettings(ctx context.Context, id string, in upstream.ConfidenceSettings) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	for i, m := range in.ConfidenceMapping {
		if strings.TrimSpace(m.Name) == "" {
			return upstream.Invalid(fmt.Sprintf("confidenceMapping[%d].name", i), "must not be empty")
		}
		if !colorRE.MatchString(m.Color) {
			return upstream.Invalid(fmt.Sprintf("confidenceMapping[%d].color", i), "%q is not a hex colour (#rrggbb)", m.Color)
		}
		if m.Range.From > m.Range.To {
			return upstream.Invalid(fmt.Sprintf("confidenceMapping[%d].range", i), "from must not exceed to")
		}
	}
	if in.ConfidenceMapping == nil {
		in.ConfidenceMapping = []upstream.ConfidenceMapping{}
	}
	return s.tx(ctx, func(q querier) error {
		a, err := s.ownAccount(ctx, q, c, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.AccountManage, nil); err != nil {
			return err
		}
		a.ConfidenceSettings = in
		return s.saveAccount(ctx, q, a)
	})
}

// SetNotificationSettings replaces the account's notification settings; the
// response-only fields keep their stored values.
func (s *Store) SetNotificationSettings(ctx context.Context, id string, in upstream.NotificationSettings) (upstream.NotificationSettings, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.NotificationSettings{}, err
	}
	for name, d := range map[string]upstream.Deadline{"checkinDeadline": in.CheckinDeadline, "reportsDeadline": in.ReportsDeadline, "retrospectiveMeeting": in.RetrospectiveMeeting} {
		if d.RemindAt.Hour < 0 || d.RemindAt.Hour > 23 || d.RemindAt.Minute < 0 || d.RemindAt.Minute > 59 {
			return upstream.NotificationSettings{}, upstream.Invalid(name+".remindAt", "must be a time of day (hour 0-23, minute 0-59)")
		}
	}
	err = s.tx(ctx, func(q querier) error {
		a, err := s.ownAccount(ctx, q, c, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.AccountManage, nil); err != nil {
			return err
		}
		if old := a.Notifications; old != nil {
			in.CheckinDeadline.LastReminded, in.CheckinDeadline.LastScheduled = old.CheckinDeadline.LastReminded, old.CheckinDeadline.LastScheduled
			in.ReportsDeadline.LastReminded, in.ReportsDeadline.LastScheduled = old.ReportsDeadline.LastReminded, old.ReportsDeadline.LastScheduled
			in.RetrospectiveMeeting.LastReminded, in.RetrospectiveMeeting.LastScheduled = old.RetrospectiveMeeting.LastReminded, old.RetrospectiveMeeting.LastScheduled
		} else {
			in.CheckinDeadline.LastReminded, in.CheckinDeadline.LastScheduled = "", ""
			in.ReportsDeadline.LastReminded, in.ReportsDeadline.LastScheduled = "", ""
			in.RetrospectiveMeeting.LastReminded, in.RetrospectiveMeeting.LastScheduled = "", ""
		}
		a.Notifications = &in
		return s.saveAccount(ctx, q, a)
	})
	return in, err
}
