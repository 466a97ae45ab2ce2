package replicate

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/benbjohnson/litestream"
	"github.com/benbjohnson/litestream/file"
	"github.com/benbjohnson/litestream/s3"
	"github.com/benbjohnson/litestream/sftp"
)

// Credentials are the replica settings that do not belong in a URL (which
// ends up in logs and process listings). Empty fields keep Litestream's
// defaults: for S3 the AWS_* environment variables and the AWS credential
// chain.
type Credentials struct {
	S3Endpoint        string // S3-compatible endpoint, e.g. http://minio:9000
	S3Region          string
	S3AccessKeyID     string
	S3SecretAccessKey string
	S3ForcePathStyle  bool // bucket in the path, not the host name (MinIO)

	SFTPPassword string
	SFTPKeyFile  string // private key file (OpenSSH or PEM format)
	SFTPHostKey  string // the server's public key, "ssh-ed25519 AAAA…"; without it the host is not verified
}

// newClient returns the Litestream client for a replica URL and the URL
// as it may be logged.
func newClient(raw string, c Credentials) (litestream.ReplicaClient, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, password included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, "", fmt.Errorf("replica URL: %w", err)
	}
	shown := Redact(raw)
	switch u.Scheme {
	case "file":
		if u.Host != "" || !filepath.IsAbs(u.Path) {
			return nil, "", fmt.Errorf("replica %s: a file replica is file:///absolute/path", shown)
		}
	case "s3":
		if u.Host == "" {
			return nil, "", fmt.Errorf("replica %s: an S3 replica is s3://bucket/prefix", shown)
		}
	case "sftp":
		if u.Host == "" || u.User.Username() == "" || strings.Trim(u.Path, "/") == "" {
			return nil, "", fmt.Errorf("replica %s: an SFTP replica is sftp://user@host[:port]/path", shown)
		}
	default:
		return nil, "", fmt.Errorf("replica %s: unsupported scheme (use file://, s3:// or sftp://)", shown)
	}
	client, err := litestream.NewReplicaClientFromURL(raw)
	if err != nil {
		return nil, "", fmt.Errorf("replica %s: %w", shown, err)
	}
	switch cl := client.(type) {
	case *file.ReplicaClient:
	case *s3.ReplicaClient:
		if c.S3Endpoint != "" {
			cl.Endpoint, _ = litestream.EnsureEndpointScheme(c.S3Endpoint)
		}
		if c.S3Region != "" {
			cl.Region = c.S3Region
		}
		if c.S3AccessKeyID != "" {
			cl.AccessKeyID = c.S3AccessKeyID
		}
		if c.S3SecretAccessKey != "" {
			cl.SecretAccessKey = c.S3SecretAccessKey
		}
		cl.ForcePathStyle = cl.ForcePathStyle || c.S3ForcePathStyle
		if (cl.AccessKeyID == "") != (cl.SecretAccessKey == "") {
			return nil, "", fmt.Errorf("replica %s: give both the S3 access key id and the secret access key, or neither", shown)
		}
	case *sftp.ReplicaClient:
		if c.SFTPPassword != "" {
			cl.Password = c.SFTPPassword
		}
		cl.KeyPath = c.SFTPKeyFile
		cl.HostKey = c.SFTPHostKey
		if cl.Password == "" && cl.KeyPath == "" {
			return nil, "", fmt.Errorf("replica %s: give --sftp-password or --sftp-key-file", shown)
		}
	default:
		return nil, "", fmt.Errorf("replica %s: unsupported scheme", shown)
	}
	return client, shown, nil
}

// Redact returns a replica URL fit for logs: no password and no query
// string (where S3 options and keys may sit).
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	u.RawQuery, u.ForceQuery, u.Fragment = "", false, ""
	return u.String()
}
