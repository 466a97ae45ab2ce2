package server

import (
	"net/http"
	"strings"

	"kycd/console"
	"kycd/portal"
)

// routes is the entire route table.
func (s *Server) routes() {
	s.handle("POST /v1/applicants", s.handleApplicantCreate)
	s.handle("GET /v1/applicants", s.handleApplicantList)
	s.handle("GET /v1/applicants/{id}", s.handleApplicantGet)
	s.handle("PATCH /v1/applicants/{id}", s.handleApplicantUpdate)
	s.handle("POST /v1/applicants/{id}/archive", s.handleApplicantArchive)
	s.handle("POST /v1/applicants/{id}/unarchive", s.handleApplicantUnarchive)
	s.handle("DELETE /v1/applicants/{id}", s.handleApplicantErase)
	s.handle("GET /v1/applicants/{id}/erasure", s.handleApplicantErasure)
	s.handle("GET /v1/applicants/{id}/export", s.handleApplicantExport)
	s.handle("POST /v1/applicants/{id}/legal-hold", s.handleLegalHoldSet)
	s.handle("POST /v1/applicants/{id}/legal-hold/lift", s.handleLegalHoldLift)

	s.handle("POST /v1/kyc-requests", s.handleKYCCreate)
	s.handle("GET /v1/kyc-requests", s.handleKYCList)
	s.handle("GET /v1/kyc-requests/{id}", s.handleKYCGet)
	s.handle("GET /v1/kyc-requests/{id}/events", s.handleKYCEvents)
	s.handle("GET /v1/kyc-requests/{id}/documents", s.handleKYCCaptures("document"))
	s.handle("GET /v1/kyc-requests/{id}/selfies", s.handleKYCCaptures("selfie"))
	s.handle("GET /v1/kyc-requests/{id}/screenings", s.handleKYCScreenings)
	s.handle("POST /v1/kyc-requests/{id}/cancel", s.handleKYCCancel)
	s.handle("POST /v1/kyc-requests/{id}/resend-link", s.handleKYCResend)
	s.handle("POST /v1/kyc-requests/{id}/approve", s.handleKYCReview(true))
	s.handle("POST /v1/kyc-requests/{id}/reject", s.handleKYCReview(false))
	s.handle("GET /v1/kyc-requests/{id}/comments", s.handleCommentList)
	s.handle("POST /v1/kyc-requests/{id}/comments", s.handleCommentCreate)
	s.handle("GET /v1/kyc-requests/{id}/tags", s.handleTagList)
	s.handle("POST /v1/kyc-requests/{id}/tags", s.handleTagAdd)
	s.handle("DELETE /v1/kyc-requests/{id}/tags/{tag}", s.handleTagRemove)
	s.handle("GET /v1/reason-codes", s.handleReasonCodeList)
	s.handle("POST /v1/reason-codes", s.handleReasonCodeCreate)
	s.handle("DELETE /v1/reason-codes/{code}", s.handleReasonCodeDelete)
	s.handle("POST /v1/kyc-requests/{id}/resubmission", s.handleKYCResubmission)
	s.handle("GET /v1/kyc-requests/{id}/report.json", s.handleKYCReportJSON)
	s.handle("GET /v1/kyc-requests/{id}/report.pdf", s.handleKYCReportPDF)
	s.handlePublic("GET /v1/files/{id}", s.handleFile)

	s.handle("POST /v1/aml-checks", s.handleAMLCheckCreate)
	s.handle("GET /v1/aml-checks", s.handleAMLCheckList)
	s.handle("GET /v1/aml-checks/{id}", s.handleAMLCheckGet)
	s.handle("PATCH /v1/aml-checks/{id}", s.handleAMLCheckUpdate)
	s.handle("POST /v1/aml-checks/{id}/rescreen", s.handleAMLCheckRescreen)
	s.handle("GET /v1/aml-checks/{id}/report.pdf", s.handleAMLReportPDF)
	s.handle("POST /v1/aml-checks/{id}/matches/{matchId}/decision", s.handleAMLMatchDecision)
	s.handle("GET /v1/aml-suppressions/{id}", s.handleAMLSuppressionGet)
	s.handle("POST "+batchPath, s.handleAMLBatchCreate)
	s.handle("GET /v1/aml-batches/{id}", s.handleAMLBatchGet)
	s.handle("GET /v1/aml-batches/{id}/rows", s.handleAMLBatchRows)
	s.handle("GET /v1/aml-batches/{id}/rows.csv", s.handleAMLBatchExport)
	s.handle("POST /v1/aml-suppressions/{id}/lift", s.handleAMLSuppressionLift)
	s.handle("GET /v1/aml-cases", s.handleAMLCaseList)
	s.handle("GET /v1/aml-cases/{id}", s.handleAMLCaseGet)
	s.handle("PATCH /v1/aml-cases/{id}", s.handleAMLCaseUpdate)
	s.handle("GET /v1/aml-cases/{id}/comments", s.handleAMLCaseCommentList)
	s.handle("POST /v1/aml-cases/{id}/comments", s.handleAMLCaseCommentCreate)
	s.handle("PUT /v1/aml-cases/{id}/sar", s.handleAMLCaseSAR)
	s.handle("GET /v1/aml-cases/{id}/sar/file", s.handleAMLCaseSARFile)

	s.handle("POST /v1/webhook-endpoints", s.handleWebhookEndpointCreate)
	s.handle("GET /v1/webhook-endpoints", s.handleWebhookEndpointList)
	s.handle("GET /v1/webhook-endpoints/{id}", s.handleWebhookEndpointGet)
	s.handle("PATCH /v1/webhook-endpoints/{id}", s.handleWebhookEndpointUpdate)
	s.handle("DELETE /v1/webhook-endpoints/{id}", s.handleWebhookEndpointDelete)
	s.handle("POST /v1/webhook-endpoints/{id}/rotate-secret", s.handleWebhookEndpointRotate)
	s.handle("POST /v1/webhook-endpoints/{id}/test", s.handleWebhookEndpointTest)
	s.handle("GET /v1/webhook-deliveries", s.handleDeliveryList)
	s.handle("GET /v1/webhook-deliveries/{id}", s.handleDeliveryGet)
	s.handle("POST /v1/webhook-deliveries/{id}/replay", s.handleDeliveryReplay)
	s.handle("POST /v1/webhook-deliveries/replay", s.handleDeliveryReplayBatch)
	s.handle("GET /v1/callback-secret", s.handleCallbackSecretGet)
	s.handle("POST /v1/callback-secret/rotate", s.handleCallbackSecretRotate)

	s.handle("GET /v1/usage", s.handleUsage)
	s.handle("GET /v1/document-types", s.handleDocumentTypes)

	// The applicant portal: HTML pages and their uploads, authenticated by
	// the link's token, not an API key.
	s.mux.Handle("/portal/", portal.New(portal.Options{Service: s.kyc, Store: s.store, Logger: s.log, ClientIP: s.clientIPs.ClientIP,
		Gate: s.uploadGate, UploadsPerMinute: s.uploadsPerMinute, StepKey: s.derivedKey("liveness step receipts")}))
	// The back office: HTML pages behind a session cookie (console/routes.go
	// has its route table, each route with the permission it needs).
	backOffice := console.New(console.Options{Store: s.store, KYC: s.kyc, AML: s.aml, Users: s.users, Log: s.log,
		Now: s.now, BaseURL: s.baseURL, ClientIP: s.clientIPs.ClientIP, Secrets: s.secrets, AllowPrivateWebhooks: s.allowPrivateWebhooks,
		MailConfigured: s.mailConfigured, SwaggerUI: s.dev, ListImports: s.listImports, ListUploadMax: s.listUploadMax,
		Export: s.ExportApplicant})
	s.mux.Handle("/console/", backOffice)
	// The front page (links to the back office, the API description and
	// the docs) is an HTML page with the console's headers and CSP.
	s.mux.Handle("GET /{$}", backOffice)

	s.handlePublic("GET /v3/api-docs", s.handleAPIDocs)
	s.handlePublic("GET /docs", s.handleAPIReference)
	s.handlePublic("GET /docs/{$}", s.handleAPIReference)
	s.handlePublic("GET /healthz", s.handleHealth)
	s.handlePublic("GET /readyz", s.handleReady)
	s.handlePublic("GET /metrics", s.handleMetrics)
	if s.dev {
		s.handlePublic("GET /swagger-ui/", s.handleSwaggerUI)
	}
}

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle registers an API route: authenticated, rate limited, and for POST
// idempotent.
func (s *Server) handle(pattern string, h handlerFunc) {
	if method, _, _ := strings.Cut(pattern, " "); method == http.MethodPost {
		h = s.idempotent(h)
	}
	s.mux.Handle(pattern, s.adapt(s.authenticate(s.rateLimit(h))))
}

// handlePublic registers a route that needs no API key.
func (s *Server) handlePublic(pattern string, h handlerFunc) {
	s.mux.Handle(pattern, s.adapt(h))
}

func (s *Server) adapt(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}
