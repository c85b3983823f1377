package upstream

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Webhook is a subscription of an integration to the event log of its
// account, as an admin sees it. The secret is never part of it: it is
// shown once, when the webhook is created or its secret replaced
// (NewWebhook); SecretPrefix, a fingerprint of it (WebhookSecretFingerprint),
// tells secrets apart without revealing any of it.
type Webhook struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	// Events are the event types delivered, or ["*"] for all.
	Events       []EventType `json:"events"`
	Description  string      `json:"description"`
	Active       bool        `json:"active"`
	SecretPrefix string      `json:"secretPrefix"`
	CreatedAt    string      `json:"createdAt"`
	UpdatedAt    string      `json:"updatedAt"`
}

// NewWebhook is a webhook with its secret: the answer of a creation, or of
// an update that replaced the secret; the only times the secret is shown.
type NewWebhook struct {
	Webhook
	Secret string `json:"secret"`
}

// WebhookInput creates a webhook. URL and Events are required; a secret is
// generated when none is given.
type WebhookInput struct {
	URL         string      `json:"url"`
	Events      []EventType `json:"events"`
	Secret      string      `json:"secret"`
	Description string      `json:"description"`
	Active      *bool       `json:"active"`
}

// WebhookPatch changes the fields of a webhook that are set. A Secret of
// "" generates a new one.
type WebhookPatch struct {
	URL         *string      `json:"url"`
	Events      *[]EventType `json:"events"`
	Secret      *string      `json:"secret"`
	Description *string      `json:"description"`
	Active      *bool        `json:"active"`
}

// Delivery states.
const (
	DeliveryPending   = "pending"   // waiting for its first or next attempt
	DeliverySucceeded = "succeeded" // an attempt got a 2xx answer
	DeliveryFailed    = "failed"    // abandoned: the retry time ran out
)

// WebhookDelivery is one event sent (or to be sent) to one webhook, with
// each attempt made.
type WebhookDelivery struct {
	ID        string    `json:"id"`
	WebhookID string    `json:"webhookId"`
	Position  int64     `json:"position"`
	EventType EventType `json:"eventType"`
	Status    string    `json:"status"`
	// Attempts are the attempts made so far, oldest first.
	Attempts []WebhookAttempt `json:"attempts"`
	// NextAttemptAt is when the next attempt is due (pending only).
	NextAttemptAt string `json:"nextAttemptAt,omitempty"`
	CreatedAt     string `json:"createdAt"`
	CompletedAt   string `json:"completedAt,omitempty"`
}

// WebhookAttempt is one attempt of a delivery.
type WebhookAttempt struct {
	Attempt int    `json:"attempt"`
	At      string `json:"at"`
	// StatusCode is the receiver's HTTP status; 0 when there was none (the
	// connection failed or the target was refused).
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs"`
	// NextAttemptAt is when the delivery is tried again after this attempt
	// failed; empty after a success or when it was abandoned.
	NextAttemptAt string `json:"nextAttemptAt,omitempty"`
}

// WebhookService serves the webhooks of the caller's account. Only admins
// may use it (MayManageWebhooks). It is apart from API: a gateway, whose
// upstream has no event log, does not serve it.
type WebhookService interface {
	CreateWebhook(ctx context.Context, in WebhookInput) (NewWebhook, error)
	ListWebhooks(ctx context.Context) ([]Webhook, error)
	GetWebhook(ctx context.Context, id string) (Webhook, error)
	// UpdateWebhook changes a webhook; the secret is in the answer only
	// when the patch replaced it.
	UpdateWebhook(ctx context.Context, id string, in WebhookPatch) (NewWebhook, error)
	// DeleteWebhook deletes a webhook and its deliveries; nothing more is
	// sent to it.
	DeleteWebhook(ctx context.Context, id string) error
	// ListWebhookDeliveries lists up to limit deliveries of a webhook,
	// newest first, before the position before (0: from the newest).
	ListWebhookDeliveries(ctx context.Context, id string, before int64, limit int) ([]WebhookDelivery, error)
}

// Bounds of webhooks.
const (
	MaxWebhookURLLen         = 2048
	MaxWebhookDescriptionLen = 500
	MinWebhookSecretLen      = 16
	MaxWebhookSecretLen      = 200
	MaxWebhooksPerAccount    = 50
	MaxDeliveriesPerPage     = 100
	// AllEvents in a webhook's events selects every event type.
	AllEvents EventType = "*"
)

// EventTypes returns every event type a webhook or a subscription may
// select: the events of each resource (Resources), its deletion last, in
// the order of Resources. account.changed is not among them.
func EventTypes() []EventType {
	var out []EventType
	for _, r := range Resources {
		out = append(out, r.Events...)
		if r.Deleted != "" {
			out = append(out, r.Deleted)
		}
	}
	return out
}

// MayManageWebhooks decides who may create, read, change and delete
// webhooks and read their deliveries: admins only. A webhook receives
// every event of the account and its secret signs them; only those who
// see everything may point it somewhere.
func MayManageWebhooks(c Caller, sub *Subject, write bool) error {
	if write {
		if err := c.CheckWrite(); err != nil {
			return err
		}
	}
	if sub == nil || !sub.Admin {
		return Errorf(CodeForbidden, "only admins may manage webhooks")
	}
	return nil
}

// NormalizeWebhookEvents checks a webhook's event types: at least one,
// each known or "*" (alone); duplicates are dropped, the order kept.
func NormalizeWebhookEvents(in []EventType) ([]EventType, error) {
	if len(in) == 0 {
		return nil, Invalid("events", "at least one event type is required (or \"*\" for all)")
	}
	known := EventTypes()
	var out []EventType
	for _, e := range in {
		if e != AllEvents && !slices.Contains(known, e) {
			return nil, Invalid("events", "unknown event type %q (docs/webhooks.md lists them)", e)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if slices.Contains(out, AllEvents) && len(out) > 1 {
		return nil, Invalid("events", "\"*\" selects every event type and stands alone")
	}
	return out, nil
}

// WebhookWants reports whether a webhook with events receives events of type t.
func WebhookWants(events []EventType, t EventType) bool {
	return slices.Contains(events, AllEvents) || slices.Contains(events, t)
}

// CheckWebhookURL checks a target URL's length and, under the policy, its
// form and host (WebhookTargetPolicy.CheckURL).
func CheckWebhookURL(p WebhookTargetPolicy, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", Invalid("url", "is required")
	}
	if len(raw) > MaxWebhookURLLen {
		return "", Invalid("url", "at most %d bytes", MaxWebhookURLLen)
	}
	return raw, p.CheckURL(raw)
}

// CheckWebhookSecret checks a secret a client chose ("" asks for a
// generated one).
func CheckWebhookSecret(secret string) error {
	if secret == "" {
		return nil
	}
	if len(secret) < MinWebhookSecretLen || len(secret) > MaxWebhookSecretLen {
		return Invalid("secret", "between %d and %d bytes", MinWebhookSecretLen, MaxWebhookSecretLen)
	}
	return nil
}

// CheckWebhookDescription checks a webhook's description.
func CheckWebhookDescription(d string) error {
	if len(d) > MaxWebhookDescriptionLen {
		return Invalid("description", "at most %d bytes", MaxWebhookDescriptionLen)
	}
	return nil
}

// NewWebhookSecret returns a new random secret: "whsec_" and 32 random
// bytes in base64url.
func NewWebhookSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// WebhookSecretFingerprint returns what listings show of a secret, in the
// field secretPrefix (named when it held the secret's first characters):
// "sha256:" and the first 8 hex digits of the secret's SHA-256. It tells
// secrets apart, and a receiver can check which secret it holds by
// hashing it, but it reveals no character of the secret whatever its
// length; 32 bits of a hash leave at least 96 of a 16-byte random secret
// unknown. A secret chosen from a dictionary could be confirmed against it
// by someone who reads the listing (an admin), as it could against any
// signature; generated secrets are 32 random bytes.
func WebhookSecretFingerprint(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(sum[:4])
}

// WebhookPayload is the JSON body of a delivery. The event names what
// changed and the keys to fetch it by; the receiver reads the item itself
// over the API, with its own token, so a delivery carries nothing that
// token could not read.
type WebhookPayload struct {
	// ID is the delivery's id: the same for every attempt, so a receiver
	// can drop repeats (deliveries are at least once).
	ID        string    `json:"id"`
	WebhookID string    `json:"webhookId"`
	Type      EventType `json:"type"`
	CreatedAt string    `json:"createdAt"`
	Event     Event     `json:"event"`
}

// Body encodes the payload; the bytes are what is signed and sent.
func (p WebhookPayload) Body() ([]byte, error) { return json.Marshal(p) }

// WebhookAttemptSucceeded decides whether a receiver's answer delivered
// the event: a 2xx status. Redirects are not followed (the target could
// send the delivery to an address the policy refuses) and count as
// failures.
func WebhookAttemptSucceeded(status int) bool { return status >= 200 && status < 300 }

// WebhookOutcome decides what follows an attempt: the delivery's new
// status and, while pending, when the next attempt is due.
func WebhookOutcome(p WebhookRetryPolicy, first time.Time, attempt int, at time.Time, status int) (state string, next time.Time) {
	if WebhookAttemptSucceeded(status) {
		return DeliverySucceeded, time.Time{}
	}
	next, ok := p.Next(first, attempt, at)
	if !ok {
		return DeliveryFailed, time.Time{}
	}
	return DeliveryPending, next
}

// WebhookJob is a delivery a dispatcher claimed: what it needs to send it.
type WebhookJob struct {
	ID        string
	WebhookID string
	AccountID string
	URL       string
	Secret    string
	Type      EventType
	Event     Event
	// Attempt is the number of this attempt (1 for the first).
	Attempt int
	// CreatedAt is when the delivery was queued; the retry time counts
	// from it.
	CreatedAt time.Time
}

// Payload returns the body of the job's delivery.
func (j WebhookJob) Payload() WebhookPayload {
	return WebhookPayload{ID: j.ID, WebhookID: j.WebhookID, Type: j.Type, CreatedAt: FormatTime(j.CreatedAt), Event: j.Event}
}
