package upstream

// Sign-in with an identity provider (docs/authorization.md, "Sign-in with
// an identity provider") binds a person, not a string: the first time an
// identity — a provider (its issuer) and the subject it names — signs in,
// it is bound to the user whose e-mail its verified user claim names; from
// then on that identity is that user, whatever its e-mail claim says later,
// and no other identity of the provider may become that user. The store
// loads the facts (IdentityFacts) and asks BindIdentity.

// ProviderIdentity is what a verified identity token says of the person it was
// issued for.
type ProviderIdentity struct {
	Issuer  string // the provider (iss)
	Subject string // the person at the provider (sub), stable
	Email   string // the value of the user claim, matched against users' e-mails
}

// IdentityFacts are what the store knows of a ProviderIdentity in one account.
type IdentityFacts struct {
	// BoundUser is the user the identity is bound to ("" when it is not
	// bound, or its user no longer exists).
	BoundUser string
	// EmailUser is the user whose e-mail is the identity's ("" when none).
	EmailUser string
	// EmailUserSubject is the subject of the identity of the same provider
	// already bound to EmailUser ("" when none).
	EmailUserSubject string
}

// BindIdentity decides which user an identity signs in as: the user it is
// bound to; else the user its e-mail names, unless another identity of the
// same provider is bound to that user — then bind reports that the binding
// is to be recorded. An identity matching no user is refused
// (CodeUnauthenticated).
func BindIdentity(id ProviderIdentity, f IdentityFacts) (user string, bind bool, err error) {
	switch {
	case id.Issuer == "" || id.Subject == "":
		return "", false, Errorf(CodeUnauthenticated, "the identity names no issuer and subject")
	case f.BoundUser != "":
		return f.BoundUser, false, nil
	case f.EmailUser == "":
		return "", false, Errorf(CodeUnauthenticated, "no user of the account has the e-mail %q", id.Email)
	case f.EmailUserSubject != "" && f.EmailUserSubject != id.Subject:
		return "", false, Errorf(CodeUnauthenticated, "the user with the e-mail %q signs in with another identity of this provider", id.Email)
	}
	return f.EmailUser, true, nil
}
