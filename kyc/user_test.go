package kyc

import "testing"

// TestPermissions: every role's permissions, and PermInstallation only for
// an admin with the installation-admin flag (a reviewer with the flag, as
// a demoted admin might have had, still has nothing of it).
func TestPermissions(t *testing.T) {
	perms := []Permission{PermRead, PermPersonalData, PermDecide, PermAdmin, PermInstallation}
	for _, tt := range []struct {
		role  Role
		flag  bool
		wants []bool // per perms
	}{
		{RoleAdmin, false, []bool{true, true, true, true, false}},
		{RoleAdmin, true, []bool{true, true, true, true, true}},
		{RoleReviewer, true, []bool{true, true, true, false, false}},
		{RoleAnalyst, false, []bool{true, true, false, false, false}},
		{RoleViewer, true, []bool{true, false, false, false, false}},
		{Role("boss"), true, []bool{false, false, false, false, false}},
	} {
		u := &User{Role: tt.role, InstallationAdmin: tt.flag}
		for i, p := range perms {
			if got := u.Can(p); got != tt.wants[i] {
				t.Errorf("%s (installation admin %v).Can(%s) = %v, want %v", tt.role, tt.flag, p, got, tt.wants[i])
			}
		}
		if tt.role.Can(PermInstallation) {
			t.Errorf("role %s alone has PermInstallation", tt.role)
		}
	}
}
