# kycd's container image: the static, cgo-free binary on an empty (scratch)
# base, run as a non-root user, its database in the /data volume.
#
#   docker build --build-arg COMMIT=$(git rev-parse HEAD) -t kycd .
#   docker run -p 8080:8080 -v kycd-data:/data -e KYCD_BASE_URL=http://localhost:8080 kycd
#
# The master key: mount it as a secret file and set KYCD_MASTER_KEY_FILE
# (compose.yaml does), or set KYCD_MASTER_KEY. Without either, serve makes
# /data/kyc.db.master-key beside the database on first start, in the same
# volume as the data it protects: fine to try kycd, not for production.
# tools/image/check builds the final stage without a network (see there).

FROM docker.io/library/golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The commit is given (the build context has no .git); the version is the
# one in internal/buildinfo.
ARG COMMIT=""
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X kycd/internal/buildinfo.commit=${COMMIT}" -o /out/kycd . \
 && mkdir -p /out/data && chown 65532:65532 /out/data \
 && mkdir -m 1777 /out/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /out/ca-certificates.crt

# ---- final stage (tools/image/check builds from here down) ----
FROM scratch
ARG VERSION=""
ARG COMMIT=""
LABEL org.opencontainers.image.title="kycd" \
      org.opencontainers.image.description="Self-hosted identity verification (KYC) and AML screening in one binary" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"
# CA roots for HTTPS: watch-list updates, webhooks, SMTP over TLS, S3 replicas.
COPY --from=build /out/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# Uploads and list imports spool to the temporary folder; scratch has none.
# Owned by kycd's user (a COPY from a context may drop the sticky bit).
COPY --from=build --chown=65532:65532 /out/tmp /tmp
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build /out/kycd /kycd
# 65532 is distroless's "nonroot"; scratch has no /etc/passwd, so a number.
USER 65532:65532
ENV KYCD_DB=/data/kyc.db \
    KYCD_ADDR=0.0.0.0:8080 \
    TMPDIR=/tmp
VOLUME ["/data"]
EXPOSE 8080
# No shell or curl in scratch: kycd asks its own /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["/kycd", "healthcheck"]
ENTRYPOINT ["/kycd"]
CMD ["serve"]
