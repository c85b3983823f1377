package rest

import (
	"net/http"
	"strconv"

	"github.com/okrgate/okrgate/upstream"
)

// eventRoute is the event feed: the log of the caller's account by
// position, as the caller may see it (docs/rest.md, "Event feed"). A
// gateway follows it to serve GraphQL subscriptions (docs/gateway.md).
const eventRoute = "/api/v2/events"

// eventTable holds the event feed. It is marked Gateway: a facade without
// the gateway's operations (Options.NoGatewayRoutes) serves none, to test
// a gateway over an upstream without a feed.
func eventTable() []entry {
	return []entry{
		{Route{Method: http.MethodGet, Pattern: eventRoute, Params: []string{"after", "limit"}, Success: http.StatusOK, Designed: true, Gateway: true}, (*server).eventFeed},
	}
}

// events returns the log of the feed, Options.Events; a server without
// one answers 404.
func (s *server) events() (upstream.EventLog, error) {
	if s.feed != nil {
		return s.feed, nil
	}
	return nil, upstream.Errorf(upstream.CodeNotFound, "the event feed is not served here: this server has no event log")
}

// eventFeed answers the events after the position after (0: from the
// oldest kept), at most limit (0 to upstream.MaxFeedEvents, default
// upstream.DefaultFeedEvents; 0 answers the head only), each as the caller
// may see it (upstream.VisibleEvents), and the head of the log.
func (s *server) eventFeed(w http.ResponseWriter, r *http.Request) (any, error) {
	log, err := s.events()
	if err != nil {
		return nil, err
	}
	after, err := intParam(r, "after", 0, 0, 1<<62)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(r, "limit", upstream.DefaultFeedEvents, 0, upstream.MaxFeedEvents)
	if err != nil {
		return nil, err
	}
	var evs []upstream.Event
	if limit > 0 {
		if evs, err = log.Events(r.Context(), after, int(limit)); err != nil {
			return nil, err
		}
	}
	head, err := log.Head(r.Context())
	if err != nil {
		return nil, err
	}
	items, err := upstream.VisibleEvents(r.Context(), s.api, evs)
	if err != nil {
		return nil, err
	}
	return upstream.EventFeed{Items: items, Head: head}, nil
}

// intParam reads an optional integer query parameter in least..most.
func intParam(r *http.Request, name string, def, least, most int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < least || n > most {
		return 0, upstream.Invalid(name, "must be an integer from %d to %d", least, most)
	}
	return n, nil
}
