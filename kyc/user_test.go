package kyc

import "testing"

// TestPermissions: every role's permissions, and PermInstallation only for
// an admin with the installation-admin flag (a reviewer with the flag, as
// a demoted admin might have had, still has nothing of it).
func TestPermissions(t *testing.T) {
	perms := []Permission{PermRead, PermPersonalData, PermDecide, PermAdmin, PermInstallation, PermSenior}
	for _, tt := range []struct {
		role   Role
		flag   bool // installation admin
		senior bool
		wants  []bool // per perms
	}{
		{RoleAdmin, false, false, []bool{true, true, true, true, false, true}},
		{RoleAdmin, true, false, []bool{true, true, true, true, true, true}},
		{RoleReviewer, true, false, []bool{true, true, true, false, false, false}},
		{RoleReviewer, false, true, []bool{true, true, true, false, false, true}},
		{RoleAnalyst, false, true, []bool{true, true, false, false, false, false}},
		{RoleViewer, true, true, []bool{true, false, false, false, false, false}},
		{Role("boss"), true, true, []bool{false, false, false, false, false, false}},
	} {
		u := &User{Role: tt.role, InstallationAdmin: tt.flag, Senior: tt.senior}
		for i, p := range perms {
			if got := u.Can(p); got != tt.wants[i] {
				t.Errorf("%s (installation admin %v, senior %v).Can(%s) = %v, want %v", tt.role, tt.flag, tt.senior, p, got, tt.wants[i])
			}
		}
		if tt.role.Can(PermInstallation) || tt.role.Can(PermSenior) {
			t.Errorf("role %s alone has PermInstallation or PermSenior", tt.role)
		}
	}
}
