// Command tour walks through kycd with a Go client generated from its
// OpenAPI description by oapi-codegen (default settings, -generate
// types,client) into ./kycdclient. It builds against the generated types,
// so a description the generator mishandles is a compile error, and it
// checks what a running kycd answers. ../run starts the server and sets
// KYCD_URL and KYCD_KEY (a sandbox key).
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"kycd-clientgen/kycdclient"
)

func main() {
	if err := tour(context.Background(), os.Getenv("KYCD_URL"), os.Getenv("KYCD_KEY")); err != nil {
		fmt.Fprintln(os.Stderr, "go tour:", err)
		os.Exit(1)
	}
}

func check(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

func ptr[T any](v T) *T { return &v }

func tour(ctx context.Context, baseURL, key string) error {
	if baseURL == "" || key == "" {
		return errors.New("set KYCD_URL and KYCD_KEY")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := kycdclient.NewClientWithResponses(baseURL, kycdclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	if err != nil {
		return err
	}
	stamp := "go-" + strconv.FormatInt(time.Now().UnixNano(), 36)

	// Applicants: create (idempotently), get, list. Metadata values are a
	// union of string, number, boolean and null.
	var plan, seats kycdclient.Metadata_AdditionalProperties
	if err := plan.FromMetadata0("gold"); err != nil {
		return err
	}
	if err := seats.FromMetadata1(3); err != nil {
		return err
	}
	dob := kycdclient.DateOfBirth{}
	if err := dob.UnmarshalText([]byte("1990-12-10")); err != nil {
		return err
	}
	body := kycdclient.ApplicantCreate{FirstName: "Ada", LastName: "Lovelace", Email: ptr(kycdclient.Email("ada@example.com")), Dob: &dob,
		Country: ptr("GB"), ExternalRef: ptr(stamp), Metadata: &kycdclient.Metadata{"plan": &plan, "seats": &seats, "referrer": nil}}
	params := &kycdclient.CreateApplicantParams{IdempotencyKey: ptr(stamp)}
	created, err := c.CreateApplicantWithResponse(ctx, params, body)
	if err != nil {
		return err
	}
	if err := check(created.StatusCode() == 201 && created.JSON201 != nil, "create applicant: %d %s", created.StatusCode(), created.Body); err != nil {
		return err
	}
	app := created.JSON201
	got, _ := app.Metadata["seats"].AsMetadata1()
	if err := check(got == 3 && app.Status == kycdclient.Active && app.Metadata["referrer"] == nil, "applicant %s", created.Body); err != nil {
		return err
	}
	again, err := c.CreateApplicantWithResponse(ctx, params, body)
	if err != nil {
		return err
	}
	if err := check(again.HTTPResponse.Header.Get("Idempotent-Replayed") == "true" && bytes.Equal(again.Body, created.Body), "idempotent replay"); err != nil {
		return err
	}
	one, err := c.GetApplicantWithResponse(ctx, app.PublicId, nil)
	if err != nil {
		return err
	}
	if err := check(one.JSON200 != nil && one.JSON200.Id == app.Id, "get applicant: %s", one.Body); err != nil {
		return err
	}
	page, err := c.ListApplicantsWithResponse(ctx, &kycdclient.ListApplicantsParams{Page: ptr(1), Size: ptr(5)})
	if err != nil {
		return err
	}
	if err := check(page.JSON200 != nil && page.JSON200.Pagination.TotalItems >= 1, "list applicants: %s", page.Body); err != nil {
		return err
	}

	// A KYC request: GET shows the creation fields, portalUrl included.
	kyc, err := c.CreateKycRequestWithResponse(ctx, nil, kycdclient.KycRequestCreate{ApplicantId: &app.Id,
		WorkflowType: ptr(kycdclient.KycRequestCreateWorkflowTypeStandard), PortalTtlHours: ptr(24)})
	if err != nil {
		return err
	}
	if err := check(kyc.JSON201 != nil, "create kyc request: %d %s", kyc.StatusCode(), kyc.Body); err != nil {
		return err
	}
	req, err := c.GetKycRequestWithResponse(ctx, kyc.JSON201.Id, nil)
	if err != nil {
		return err
	}
	r := req.JSON200
	if err := check(r != nil && r.Status == kycdclient.KycStatusLinkGenerated && r.PortalUrl != nil && *r.PortalUrl == kyc.JSON201.PortalUrl &&
		r.PortalOpenedAt == nil && r.ProcessingResult == nil, "kyc request: %s", req.Body); err != nil {
		return err
	}
	events, err := c.ListKycRequestEventsWithResponse(ctx, r.Id, nil)
	if err != nil {
		return err
	}
	if err := check(events.JSON200 != nil && len(events.JSON200.Data) >= 2 && events.JSON200.Data[0].Type == kycdclient.KycTimelineTypeSvcKycRequestCreated,
		"timeline: %s", events.Body); err != nil {
		return err
	}
	pdf, err := c.GetKycReportPdfWithResponse(ctx, r.Id, nil)
	if err != nil {
		return err
	}
	if err := check(pdf.StatusCode() == 200 && bytes.HasPrefix(pdf.Body, []byte("%PDF-")), "report.pdf: %d", pdf.StatusCode()); err != nil {
		return err
	}

	// AML: a hit, a failure with no risk level, and its retry.
	pep, err := c.CreateAmlCheckWithResponse(ctx, nil, kycdclient.AmlCheckCreate{FirstName: "Sandbox", LastName: "Politician"})
	if err != nil {
		return err
	}
	h := pep.JSON201
	if err := check(h != nil && h.Status == kycdclient.AmlStatusPotentialMatch && h.RiskLevel != nil && *h.RiskLevel == kycdclient.High &&
		len(h.Results) == 3 && len(h.Results[1].Matches) > 0 && h.Results[1].Matches[0].Score > 0.9, "aml hit: %s", pep.Body); err != nil {
		return err
	}
	failed, err := c.CreateAmlCheckWithResponse(ctx, nil, kycdclient.AmlCheckCreate{FirstName: "Sandbox", LastName: "Failure"})
	if err != nil {
		return err
	}
	f := failed.JSON201
	if err := check(f != nil && f.Status == kycdclient.AmlStatusFailed && f.RiskLevel == nil && f.Results[0].RiskLevel == nil,
		"failed check: %s", failed.Body); err != nil {
		return err
	}
	retried, err := c.RescreenAmlCheckWithResponse(ctx, f.Id, nil, kycdclient.AmlCheckRescreen{})
	if err != nil {
		return err
	}
	if err := check(retried.JSON200 != nil && len(retried.JSON200.MonitoringHistory) == 2 &&
		retried.JSON200.MonitoringHistory[1].Trigger == kycdclient.AmlScreeningTriggerManual, "rescreen: %s", retried.Body); err != nil {
		return err
	}
	hits, err := c.ListAmlChecksWithResponse(ctx, &kycdclient.ListAmlChecksParams{Status: ptr(kycdclient.AmlStatusPotentialMatch), Size: ptr(10)})
	if err != nil {
		return err
	}
	if err := check(hits.JSON200 != nil && slices.ContainsFunc(hits.JSON200.Data, func(s kycdclient.AmlCheckSummary) bool { return s.Id == h.Id }),
		"list aml checks: %s", hits.Body); err != nil {
		return err
	}

	// Webhooks: the secret is a plain string in the create and rotate
	// answers; a test delivery's payload is one of the event bodies.
	ep, err := c.CreateWebhookEndpointWithResponse(ctx, nil, kycdclient.WebhookEndpointCreate{Url: "http://127.0.0.1:9/hook",
		EventTypes: &[]kycdclient.EventType{kycdclient.EventTypeSvcWebhookTest}})
	if err != nil {
		return err
	}
	if err := check(ep.JSON201 != nil && strings.HasPrefix(ep.JSON201.Secret, "whsec_"), "create endpoint: %s", ep.Body); err != nil {
		return err
	}
	rot, err := c.RotateWebhookEndpointSecretWithResponse(ctx, ep.JSON201.Id, nil, kycdclient.RotateSecretRequest{OverlapHours: ptr(0)})
	if err != nil {
		return err
	}
	if err := check(rot.JSON200 != nil && rot.JSON200.Secret != ep.JSON201.Secret, "rotate secret: %s", rot.Body); err != nil {
		return err
	}
	test, err := c.TestWebhookEndpointWithResponse(ctx, ep.JSON201.Id, nil)
	if err != nil {
		return err
	}
	if err := check(test.JSON202 != nil, "test event: %d %s", test.StatusCode(), test.Body); err != nil {
		return err
	}
	del, err := c.GetWebhookDeliveryWithResponse(ctx, test.JSON202.DeliveryId, nil)
	if err != nil {
		return err
	}
	if err := check(del.JSON200 != nil && del.JSON200.Payload != nil, "delivery: %s", del.Body); err != nil {
		return err
	}
	payload, err := del.JSON200.Payload.ValueByDiscriminator()
	if err != nil {
		return err
	}
	te, ok := payload.(kycdclient.TestEvent)
	if err := check(ok && te.EventType == kycdclient.TestEventEventTypeSvcWebhookTest && te.ResourceId == ep.JSON201.Id,
		"delivery payload %T %+v", payload, payload); err != nil {
		return err
	}
	gone, err := c.DeleteWebhookEndpointWithResponse(ctx, ep.JSON201.Id, nil)
	if err != nil {
		return err
	}
	if err := check(gone.StatusCode() == 204, "delete endpoint: %d", gone.StatusCode()); err != nil {
		return err
	}

	// Errors arrive typed as the envelope.
	missing, err := c.GetApplicantWithResponse(ctx, "app_0000000000zz", nil)
	if err != nil {
		return err
	}
	if err := check(missing.JSON404 != nil && missing.JSON404.Error.Code == kycdclient.ErrorErrorCodeNOTFOUND, "404: %s", missing.Body); err != nil {
		return err
	}
	fmt.Printf("go tour: ok (applicant %s, kyc %s, aml %s)\n", app.PublicId, kyc.JSON201.PublicId, h.PublicId)
	return nil
}
