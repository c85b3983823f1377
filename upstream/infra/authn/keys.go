package authn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// DefaultKeyRefetch is the least time between two fetches of an issuer's
// key set (OIDCConfig.KeyRefetch).
const DefaultKeyRefetch = 30 * time.Second

// errKeysUnavailable marks a failure to fetch the provider's key set: the
// provider failed, not the token.
var errKeysUnavailable = errors.New("the identity provider's keys could not be fetched")

// keySet is an issuer's JSON Web Key Set, cached, and fetched again only
// for a key id it lacks and at most once per refetch: go-oidc's
// RemoteKeySet fetches again for every token whose signature its cached
// keys do not verify, so each forged token with a fresh kid would make
// okrgate fetch the provider's keys (an amplifier towards the provider).
// It is an oidc.KeySet.
type keySet struct {
	url     string
	client  *http.Client
	algs    []jose.SignatureAlgorithm
	refetch time.Duration // <= 0: no limit
	now     func() time.Time

	fetch sync.Mutex // held while fetching: one fetch at a time
	mu    sync.Mutex
	keys  []jose.JSONWebKey
	last  time.Time // of the last fetch; zero: never fetched
}

func newKeySet(url string, client *http.Client, algs []string, refetch time.Duration) *keySet {
	k := &keySet{url: url, client: client, refetch: refetch, now: time.Now}
	for _, a := range algs {
		k.algs = append(k.algs, jose.SignatureAlgorithm(a))
	}
	return k
}

// VerifySignature verifies jwt's signature with the key its kid names (or,
// without a kid, with any key) and returns its payload. Only when no
// cached key has the kid is the key set fetched again, and only when the
// last fetch is refetch old.
func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(jwt, k.algs)
	if err != nil {
		return nil, fmt.Errorf("malformed jwt: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("a token must have exactly one signature")
	}
	kid := jws.Signatures[0].Header.KeyID
	keys, known := k.lookup(kid)
	if !known {
		if keys, err = k.fetchFor(ctx, kid); err != nil {
			return nil, err
		}
	}
	for _, key := range keys {
		if kid == "" || key.KeyID == kid {
			if payload, err := jws.Verify(&key); err == nil {
				return payload, nil
			}
		}
	}
	return nil, errors.New("failed to verify the token's signature")
}

// lookup returns the cached keys and whether one has kid (any key, when
// kid is empty and some are cached).
func (k *keySet) lookup(kid string) ([]jose.JSONWebKey, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys, k.has(kid)
}

func (k *keySet) has(kid string) bool {
	for _, key := range k.keys {
		if kid == "" || key.KeyID == kid {
			return true
		}
	}
	return false
}

// fetchFor fetches the key set for a kid the cache lacks, unless the last
// fetch is less than refetch old: then the cached keys answer (and the
// token is refused). Concurrent callers wait for one fetch.
func (k *keySet) fetchFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	k.fetch.Lock()
	defer k.fetch.Unlock()
	k.mu.Lock()
	keys, last := k.keys, k.last
	if k.has(kid) || !last.IsZero() && k.refetch > 0 && k.now().Sub(last) < k.refetch {
		k.mu.Unlock()
		return keys, nil // fetched meanwhile, or fetched too recently
	}
	k.mu.Unlock()
	keys, err := k.get(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.last = k.now()
	if err != nil {
		return k.keys, fmt.Errorf("%w: %w", errKeysUnavailable, err)
	}
	k.keys = keys
	return keys, nil
}

// get fetches the key set, keeping the keys it can decode (a set may hold
// keys of types this build does not know).
func (k *keySet) get(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", k.url, resp.Status)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("GET %s: %w", k.url, err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		if err := key.UnmarshalJSON(raw); err == nil && key.Valid() && key.IsPublic() && (key.Use == "" || key.Use == "sig") {
			keys = append(keys, key)
		}
	}
	return keys, nil
}
