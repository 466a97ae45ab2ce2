package cmd

import (
	"log/slog"
	"time"

	"kycd/replicate"
	"kycd/server"
)

// replicateFlags are serve's replication flags (Litestream).
type replicateFlags struct {
	Replicate                 []string      `name:"replicate" env:"KYCD_REPLICATE" group:"replication" sep:"," placeholder:"URL" help:"Stream the database with Litestream to this replica: file:///path, s3://bucket/prefix or sftp://user@host[:port]/path (relative to the login directory). Repeatable; in KYCD_REPLICATE comma-separated."`
	ReplicateSyncInterval     time.Duration `name:"replicate-sync-interval" default:"1s" env:"KYCD_REPLICATE_SYNC_INTERVAL" group:"replication" help:"How often new writes are uploaded: at most this much (in time) is lost with the disk (the RPO)."`
	ReplicateSnapshotInterval time.Duration `name:"replicate-snapshot-interval" default:"24h" env:"KYCD_REPLICATE_SNAPSHOT_INTERVAL" group:"replication" help:"How often a full snapshot is uploaded."`
	ReplicateRetention        time.Duration `name:"replicate-retention" default:"72h" env:"KYCD_REPLICATE_RETENTION" group:"replication" help:"How long snapshots and changes are kept: the oldest point in time a restore can reach."`
	replicaCredentials
}

// replicaCredentials are the S3 and SFTP settings of replica URLs, kept out
// of the URLs (which are logged).
type replicaCredentials struct {
	S3Endpoint        string `name:"s3-endpoint" env:"KYCD_S3_ENDPOINT" group:"replication" help:"S3-compatible endpoint (MinIO, Ceph, R2, …), e.g. http://minio:9000."`
	S3Region          string `name:"s3-region" env:"KYCD_S3_REGION" group:"replication" help:"S3 region (default: the bucket's, or us-east-1 with --s3-endpoint)."`
	S3AccessKeyID     string `name:"s3-access-key-id" env:"KYCD_S3_ACCESS_KEY_ID" group:"replication" help:"S3 access key id (default AWS_ACCESS_KEY_ID, else the AWS credential chain)."`
	S3SecretAccessKey string `name:"s3-secret-access-key" env:"KYCD_S3_SECRET_ACCESS_KEY" group:"replication" help:"S3 secret access key (default AWS_SECRET_ACCESS_KEY; prefer an environment variable to the flag)."`
	S3ForcePathStyle  bool   `name:"s3-force-path-style" env:"KYCD_S3_FORCE_PATH_STYLE" group:"replication" help:"Address the bucket as <endpoint>/<bucket> (MinIO and most self-hosted S3)."`
	SFTPPassword      string `name:"sftp-password" env:"KYCD_SFTP_PASSWORD" group:"replication" help:"SFTP password (prefer the environment variable to the flag)."`
	SFTPKeyFile       string `name:"sftp-key-file" env:"KYCD_SFTP_KEY_FILE" group:"replication" type:"path" help:"SFTP private key file."`
	SFTPHostKey       string `name:"sftp-host-key" env:"KYCD_SFTP_HOST_KEY" group:"replication" help:"The SFTP server's public key ('ssh-ed25519 AAAA…', a known_hosts line without the host name). Without it the server is not verified."`
}

func (c replicaCredentials) credentials() replicate.Credentials {
	return replicate.Credentials{S3Endpoint: c.S3Endpoint, S3Region: c.S3Region, S3AccessKeyID: c.S3AccessKeyID,
		S3SecretAccessKey: c.S3SecretAccessKey, S3ForcePathStyle: c.S3ForcePathStyle,
		SFTPPassword: c.SFTPPassword, SFTPKeyFile: c.SFTPKeyFile, SFTPHostKey: c.SFTPHostKey}
}

// startReplication starts Litestream when --replicate is given, and
// returns nil otherwise (the nil Replicator's methods do nothing). It runs
// before the store opens the file: see replicate.Start.
func (f replicateFlags) startReplication(e *env, db string, log *slog.Logger) (*replicate.Replicator, error) {
	if len(f.Replicate) == 0 {
		return nil, nil
	}
	if err := requireSQLite(db, "--replicate (Litestream)", "replicate with the engine's own streaming replication or WAL archiving"); err != nil {
		return nil, err
	}
	return replicate.Start(e.ctx, replicate.Config{DB: db, URLs: f.Replicate, Credentials: f.credentials(),
		SyncInterval: f.ReplicateSyncInterval, SnapshotInterval: f.ReplicateSnapshotInterval,
		Retention: f.ReplicateRetention, Logger: log})
}

// stopReplication uploads the last writes and stops Litestream; serve
// defers it before the store's Close, so that it runs after it.
func stopReplication(rep *replicate.Replicator, log *slog.Logger) {
	if err := rep.Close(); err != nil {
		log.Error("stop replication", "err", err)
	}
}

// replicationStatus adapts the replicator's status for /readyz and
// /metrics; nil when replication is off.
func replicationStatus(rep *replicate.Replicator) func() []server.ReplicaStatus {
	if rep == nil {
		return nil
	}
	return func() []server.ReplicaStatus {
		var out []server.ReplicaStatus
		for _, r := range rep.Status() {
			out = append(out, server.ReplicaStatus{URL: r.URL, LastSync: r.LastSync, Lag: r.Lag, Error: r.LastError})
		}
		return out
	}
}
