// A short tour of kycd through a client generated from its OpenAPI
// description: openapi-typescript makes the types (src/kycd.gen.ts),
// openapi-fetch the calls. It compiles with tsc --strict against the
// generated types, so a field the description gets wrong is a compile
// error, and it checks what a running kycd answers. ../run starts the
// server and sets KYCD_URL and KYCD_KEY (a sandbox key).
import createClient from "openapi-fetch";
import type { components, paths } from "./kycd.gen.js";

// The few Node globals the tour uses, declared here rather than pulling
// in all of @types/node.
declare const process: { env: Record<string, string | undefined>; exitCode: number | undefined };

type Schemas = components["schemas"];

const baseUrl = process.env.KYCD_URL ?? "";
const key = process.env.KYCD_KEY ?? "";
const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(`tour: ${what}`);
}

async function main(): Promise<void> {
  check(baseUrl !== "" && key !== "", "set KYCD_URL and KYCD_KEY");
  const stamp = `ts-${Date.now()}`;

  // Applicants: create (idempotently), get, list.
  const body: Schemas["ApplicantCreate"] = {
    firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", dob: "1990-12-10", country: "GB",
    externalRef: stamp, metadata: { plan: "gold", seats: 3, trial: false, referrer: null },
  };
  const created = await api.POST("/v1/applicants", { body, params: { header: { "Idempotency-Key": stamp } } });
  check(created.response.status === 201 && created.data !== undefined, `create applicant: ${created.response.status}`);
  const app: Schemas["Applicant"] = created.data;
  check(app.metadata["seats"] === 3 && app.status === "active", `applicant ${JSON.stringify(app)}`);
  const again = await api.POST("/v1/applicants", { body, params: { header: { "Idempotency-Key": stamp } } });
  check(again.response.headers.get("Idempotent-Replayed") === "true" && again.data?.id === app.id, "idempotent replay");
  const got = await api.GET("/v1/applicants/{id}", { params: { path: { id: app.publicId } } });
  check(got.data?.id === app.id, "get applicant by public id");
  const page = await api.GET("/v1/applicants", { params: { query: { page: 1, size: 5 } } });
  check((page.data?.pagination.totalItems ?? 0) >= 1, "list applicants");

  // A KYC request: GET shows the creation fields, portalUrl included.
  const kyc = await api.POST("/v1/kyc-requests", { body: { applicantId: app.id, workflowType: "standard", portalTtlHours: 24 } });
  check(kyc.response.status === 201 && kyc.data !== undefined, `create kyc request: ${kyc.response.status}`);
  const req = await api.GET("/v1/kyc-requests/{id}", { params: { path: { id: kyc.data.id } } });
  check(req.data !== undefined, "get kyc request");
  const status: Schemas["KycStatus"] = req.data.status;
  check(status === "link_generated" && req.data.portalUrl === kyc.data.portalUrl && req.data.portalOpenedAt === null,
    `kyc request ${JSON.stringify(req.data)}`);
  const events = await api.GET("/v1/kyc-requests/{id}/events", { params: { path: { id: kyc.data.id } } });
  const types: Schemas["KycTimelineType"][] = (events.data?.data ?? []).map((e) => e.type);
  check(types[0] === "svc.kyc.request.created" && types.includes("svc.kyc.portal_link_ready"), `timeline ${types}`);
  const pdf = await api.GET("/v1/kyc-requests/{id}/report.pdf", { params: { path: { id: kyc.data.id } }, parseAs: "arrayBuffer" });
  check(pdf.data !== undefined && new TextDecoder().decode(pdf.data.slice(0, 5)) === "%PDF-", "report.pdf");

  // AML: a hit, a failure with no risk level, and its retry.
  const pep = await api.POST("/v1/aml-checks", { body: { firstName: "Sandbox", lastName: "Politician" } });
  check(pep.data?.status === "potential_match", `aml hit: ${pep.data?.status}`);
  const hit: Schemas["AmlCheck"] = pep.data;
  const risk: Schemas["RiskLevel"] | null = hit.riskLevel;
  const score: number = hit.results[1]?.matches[0]?.score ?? 0;
  check(risk === "high" && score > 0.9, `risk ${risk}, score ${score}`);
  const failed = await api.POST("/v1/aml-checks", { body: { firstName: "Sandbox", lastName: "Failure" } });
  check(failed.data?.status === "failed" && failed.data.results[0]?.riskLevel === null, "failed check, sanctions risk null");
  const retried = await api.POST("/v1/aml-checks/{id}/rescreen", { params: { path: { id: failed.data.id } }, body: {} });
  const history = retried.data?.monitoringHistory ?? [];
  check(history.length === 2 && history[1]?.trigger === "manual", `rescreen history ${JSON.stringify(history)}`);
  const matches = await api.GET("/v1/aml-checks", { params: { query: { status: "potential_match", size: 10 } } });
  check((matches.data?.data ?? []).some((c) => c.id === hit.id), "list aml checks by status");

  // Webhooks: the secret is in the create and rotate answers (typed as
  // present), a test delivery's payload is one of the event bodies.
  const ep = await api.POST("/v1/webhook-endpoints", { body: { url: "http://127.0.0.1:9/hook", eventTypes: ["svc.webhook.test"] } });
  check(ep.data !== undefined, `create endpoint: ${ep.response.status}`);
  const secret: string = ep.data.secret;
  const rotated = await api.POST("/v1/webhook-endpoints/{id}/rotate-secret", { params: { path: { id: ep.data.id } }, body: { overlapHours: 0 } });
  check(secret.startsWith("whsec_") && rotated.data !== undefined && rotated.data.secret !== secret, "rotate secret");
  const test = await api.POST("/v1/webhook-endpoints/{id}/test", { params: { path: { id: ep.data.id } } });
  check(test.response.status === 202 && test.data !== undefined, "test event");
  const delivery = await api.GET("/v1/webhook-deliveries/{id}", { params: { path: { id: test.data.deliveryId } } });
  const payload = delivery.data?.payload;
  check(payload !== undefined && payload.eventType === "svc.webhook.test" && payload.resourceId === ep.data.id,
    `delivery payload ${JSON.stringify(payload)}`);
  const del = await api.DELETE("/v1/webhook-endpoints/{id}", { params: { path: { id: ep.data.id } } });
  check(del.response.status === 204, "delete endpoint");

  // Errors arrive typed as the envelope.
  const missing = await api.GET("/v1/applicants/{id}", { params: { path: { id: "app_0000000000zz" } } });
  const code: Schemas["Error"]["error"]["code"] | undefined = missing.error?.error.code;
  check(missing.response.status === 404 && code === "NOT_FOUND", `404: ${JSON.stringify(missing.error)}`);

  console.log(`typescript tour: ok (applicant ${app.publicId}, kyc ${kyc.data.publicId}, aml ${hit.publicId})`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
