package aml

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// KindBatch is the job that screens a batch's pending rows.
const KindBatch = "aml.batch"

// batchChunk rows are screened in parallel and written in one
// transaction: a crash loses at most one chunk's screening (not its rows,
// which stay pending and are screened by the next run).
const batchChunk = 500

type batchPayload struct {
	BatchID        string          `json:"batchId"`
	OrganizationID string          `json:"organizationId"`
	Environment    kyc.Environment `json:"environment"`
}

// CreateBatch stores a batch of subjects (rows refused at validation carry
// their errors) and queues its job in the caller's transaction.
func (s *Service) CreateBatch(tx *store.Tx, orgID string, env kyc.Environment, rows []kyc.AMLBatchRow, monitoring bool) (*kyc.AMLBatch, error) {
	b := &kyc.AMLBatch{OrganizationID: orgID, Environment: env, Monitoring: monitoring}
	if err := tx.CreateAMLBatch(b, rows); err != nil {
		return nil, err
	}
	payload, err := json.Marshal(batchPayload{BatchID: b.ID, OrganizationID: orgID, Environment: env})
	if err != nil {
		return nil, fmt.Errorf("encode batch job: %w", err)
	}
	if _, err := tx.EnqueueJob(store.NewJob{Kind: KindBatch, Payload: payload, MaxAttempts: 10, DedupeKey: KindBatch + "/" + b.ID}); err != nil {
		return nil, err
	}
	return b, nil
}

func (s *Service) registerBatch(r *jobs.Runner) {
	// 10,000 subjects take about 10 s on a loaded 2-core machine; an
	// attempt cut by the timeout keeps what it committed and the next one
	// goes on from there. The lease (about twice the timeout) is how long a
	// crashed run's batch waits before another process takes it over.
	r.Register(jobs.Kind{Name: KindBatch, MaxAttempts: 10, Backoff: jobs.Schedule(10*time.Second, time.Minute),
		Timeout: 5 * time.Minute, Run: s.runBatch})
}

func (s *Service) runBatch(ctx context.Context, j store.Job) error {
	var p batchPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return fmt.Errorf("batch job payload: %w", err)
	}
	return s.RunBatch(ctx, p.OrganizationID, p.Environment, p.BatchID)
}

// RunBatch screens every pending row of a batch, chunk by chunk, then
// completes it and fires svc.aml_batch.completed. Run again after a crash,
// it resumes with the rows still pending.
func (s *Service) RunBatch(ctx context.Context, orgID string, env kyc.Environment, batchID string) error {
	return s.runBatchChunks(ctx, orgID, env, batchID, -1)
}

// runBatchChunks is RunBatch stopping after maxChunks chunks (when not
// negative) without completing the batch: how a crash between chunks
// looks to the next run.
func (s *Service) runBatchChunks(ctx context.Context, orgID string, env kyc.Environment, batchID string, maxChunks int) error {
	if err := s.Refresh(ctx); err != nil {
		return err
	}
	b, err := s.store.FindAMLBatch(ctx, orgID, env, batchID)
	if err != nil {
		return err
	}
	th, err := s.store.AMLThreshold(ctx, orgID, screening.DefaultThreshold)
	if err != nil {
		return err
	}
	scope, err := s.Scope(ctx, orgID, env)
	if err != nil {
		return err
	}
	for chunk := 0; ; chunk++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if chunk == maxChunks {
			return nil
		}
		rows, err := s.store.PendingBatchRows(ctx, b.ID, batchChunk)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			break
		}
		screened := s.screenRows(env, rows, th, scope)
		err = s.store.InTx(ctx, func(tx *store.Tx) error {
			for i, r := range rows {
				c, err := s.create(tx, orgID, env, screened[i], b.Monitoring, false)
				if err != nil {
					return err
				}
				ok, err := tx.MarkBatchRowScreened(b.ID, r.Index, c)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("batch %s row %d was screened by another run", b.ID, r.Index)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		done, err := tx.CompleteAMLBatch(b)
		if err != nil || !done {
			return err
		}
		now, err := tx.FindAMLBatch(orgID, env, b.ID)
		if err != nil {
			return err
		}
		return recordBatchEvent(tx, now)
	})
}

// screenRows screens rows in parallel over the available cores.
func (s *Service) screenRows(env kyc.Environment, rows []kyc.AMLBatchRow, th float64, scope []screening.Kind) []*Screened {
	out := make([]*Screened, len(rows))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				sub := rows[i].Subject
				subject := Subject{FirstName: *sub.FirstName, LastName: *sub.LastName, DOB: sub.DOB, Country: sub.Country}
				results := s.screener.ScreenKinds(env, subject.query(), th, scope)
				kyc.AssignMatchIDs(results)
				out[i] = &Screened{Subject: subject, Threshold: th, Results: results}
			}
		}()
	}
	for i := range rows {
		work <- i
	}
	close(work)
	wg.Wait()
	return out
}

// recordBatchEvent fires svc.aml_batch.completed with the batch's figures.
func recordBatchEvent(tx *store.Tx, b *kyc.AMLBatch) error {
	ev := tx.NewEvent(b.OrganizationID, b.Environment, kyc.EventAMLBatchCompleted, b.ID)
	var completed *string
	if b.CompletedAt != nil {
		t := kyc.FormatTime(*b.CompletedAt)
		completed = &t
	}
	body := map[string]any{"eventId": ev.ID, "eventType": ev.Type, "resourceId": b.ID, "status": b.Status, "total": b.Total,
		"screened": b.Screened, "failed": b.Failed, "potentialMatches": b.PotentialMatches, "completedAt": completed,
		"organizationId": b.OrganizationID, "environment": b.Environment, "createdAt": kyc.FormatTime(ev.CreatedAt)}
	var err error
	if ev.Payload, err = json.Marshal(body); err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	_, err = tx.RecordEvent(ev, "")
	return err
}
