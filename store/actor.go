package store

import (
	"context"

	"kycd/kyc"
)

type actorKey struct{}

// WithActor returns a context whose write transactions act for p: the
// audit rows of operator actions (keys, organization settings, webhook
// endpoints, watch lists, the master key) name p as their actor. The API
// sets the request's key, the CLI the operator; without one a transaction
// acts for the system (jobs).
func WithActor(ctx context.Context, p kyc.Principal) context.Context {
	return context.WithValue(ctx, actorKey{}, p)
}

// ActorFrom returns the principal WithActor put in ctx (zero if none).
func ActorFrom(ctx context.Context) kyc.Principal {
	p, _ := ctx.Value(actorKey{}).(kyc.Principal)
	return p
}

// actorOrSystem is the transaction's actor as audit columns.
func (tx *Tx) actorOrSystem() (kyc.ActorType, *string) {
	if tx.actor.IsZero() {
		return kyc.ActorSystem, nil
	}
	id := tx.actor.ID
	return tx.actor.Type, &id
}
