// Command webhooks measures webhook delivery on this machine: the real job
// runner, dispatcher and store on a temporary database, posting to a local
// receiver over loopback.
//
//   - throughput: a burst of events, fanned out over -endpoints endpoints, is
//     recorded in one go; reports deliveries/s until the last is
//     acknowledged;
//
//   - delay: events are recorded at a steady -rate; reports the time from
//     each event's commit to its delivery reaching the receiver (p50/p99).
//
//     go run ./bench/webhooks -burst 20000 -rate 300 -duration 10s
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
	"kycd/webhook"
)

func main() {
	burst := flag.Int("burst", 20000, "events in the throughput run")
	endpoints := flag.Int("endpoints", 16, "endpoints the events are spread over")
	rate := flag.Int("rate", 300, "events per second in the delay run")
	duration := flag.Duration("duration", 10*time.Second, "length of the delay run")
	flag.Parse()

	dir, err := os.MkdirTemp("", "kycd-webhooks-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(context.Background(), filepath.Join(dir, "kyc.db"), store.Options{MasterKey: throwawayMasterKey})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	box, _ := seal.New(make([]byte, seal.KeySize))

	var mu sync.Mutex
	arrived := map[string]time.Time{} // delivery id → first arrival
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		id := r.Header.Get("X-Svc-Delivery")
		mu.Lock()
		if _, seen := arrived[id]; !seen {
			arrived[id] = now
		}
		mu.Unlock()
	}))
	defer rc.Close()

	var org string
	var eps []*kyc.WebhookEndpoint
	err = st.InTx(context.Background(), func(tx *store.Tx) error {
		o, err := tx.CreateOrganization("bench", "")
		if err != nil {
			return err
		}
		org = o.ID
		for i := range *endpoints {
			ep, err := tx.CreateWebhookEndpoint(box, store.NewWebhookEndpoint{OrganizationID: org, Environment: kyc.Sandbox, URL: fmt.Sprintf("%s/%d", rc.URL, i)})
			if err != nil {
				return err
			}
			eps = append(eps, ep)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	runner := jobs.New(jobs.Options{Store: st, Concurrency: 32})
	// The receivers listen on loopback: private targets allowed, as with
	// kycd serve --allow-private-webhooks.
	(&webhook.Dispatcher{Store: st, Box: box, Sender: webhook.NewSender(true), Jitter: webhook.RetryJitter}).Register(runner)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runner.Start(ctx) }()

	record := func(i int) (string, time.Time) {
		var id string
		err := st.InTx(context.Background(), func(tx *store.Tx) error {
			ep := eps[i%len(eps)]
			ev := tx.NewEvent(org, kyc.Sandbox, kyc.EventWebhookTest, ep.ID)
			ev.Payload = []byte(fmt.Sprintf(`{"eventId":%q,"eventType":"svc.webhook.test","n":%d}`, ev.ID, i))
			ids, err := tx.RecordEvent(ev, ep.ID)
			if err == nil && len(ids) == 1 {
				id = ids[0]
			}
			return err
		})
		if err != nil {
			log.Fatal(err)
		}
		return id, time.Now()
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(arrived)
	}

	fmt.Printf("kycd webhook benchmark: %d CPUs, %s, runner concurrency 32, %d endpoints, 4 in flight per endpoint\n\n",
		runtime.NumCPU(), runtime.Version(), len(eps))

	// Throughput: record the burst from 8 writers, then wait for every delivery.
	start := time.Now()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < *burst; i += 8 {
				record(i)
			}
		})
	}
	wg.Wait()
	recorded := time.Since(start)
	for count() < *burst {
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	fmt.Printf("throughput: %d deliveries acknowledged in %.2f s = %.0f deliveries/s (events recorded in %.2f s)\n",
		*burst, elapsed.Seconds(), float64(*burst)/elapsed.Seconds(), recorded.Seconds())
	fmt.Printf("goal ≥ 1,000 deliveries/s: %s\n\n", verdict(float64(*burst)/elapsed.Seconds() >= 1000))

	// Delay: steady rate, commit → first arrival at the receiver.
	n := int(duration.Seconds() * float64(*rate))
	interval := time.Second / time.Duration(*rate)
	committed := make(map[string]time.Time, n)
	t0 := time.Now()
	for i := range n {
		if wait := time.Until(t0.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		id, at := record(*burst + i)
		committed[id] = at
	}
	for count() < *burst+n {
		time.Sleep(5 * time.Millisecond)
	}
	var delays []float64
	mu.Lock()
	for id, at := range committed {
		delays = append(delays, float64(arrived[id].Sub(at).Microseconds())/1000)
	}
	mu.Unlock()
	sort.Float64s(delays)
	p := func(q float64) float64 { return delays[int(float64(len(delays)-1)*q/100)] }
	fmt.Printf("commit → attempt at %d events/s for %s: p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms\n",
		*rate, *duration, p(50), p(99), p(99.9), delays[len(delays)-1])
	fmt.Printf("goal p99 < 250 ms: %s\n", verdict(p(99) < 250))
	cancel()
	<-done
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// throwawayMasterKey encrypts the benchmark's temporary database (and keys
// its audit log) under a random key that dies with the process.
func throwawayMasterKey(bool) (store.Sealer, error) {
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	return seal.New(key)
}
