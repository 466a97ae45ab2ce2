package aml

import (
	"context"

	"kycd/kyc"
)

// RunBatchChunks runs a batch for maxChunks chunks and stops as a crash
// would, leaving the rest pending.
func (s *Service) RunBatchChunks(ctx context.Context, orgID string, env kyc.Environment, batchID string, maxChunks int) error {
	return s.runBatchChunks(ctx, orgID, env, batchID, maxChunks)
}
