#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Ansible role contrib/ansible/roles/nodrop (through the example contrib/ansible/site.yml)
# against nicsim ports, iproute2 as the oracle: the first run applies and reports changed, the
# second changes nothing, --check runs the dry run and leaves an operator's setting alone, a
# profile whose audit fails fails the play with the finding, and the boot unit is enabled.
#
# Host-driven (`make vm-ansible`: tests/vm/vm.sh -H): Ansible runs here, at native speed, as the
# managed host's controller and modules (under TCG one play took 2-4.5 min); nodrop_bin is a
# wrapper that runs build/nodrop in the guest, on nicsim's ports, and the checks read the
# guest's ports with dcb and ip there. The role writes /etc: each play runs in a mount namespace
# of its own where /etc is an overlay whose upper layer is $U (kept from play to play) and /run
# is empty (no systemd to talk to, so systemctl enables offline); the guest sees the profiles
# the role installs through a bind of $U/upper/nodrop at its /etc/nodrop.
set -u
. tests/vm/host-lib.sh

ND=$(realpath "${ND_NODROP:-build/nodrop}")
DCB="nd_vm_g nd_vm_dcb"
IP="nd_vm_g /usr/sbin/ip"
A=$ND_OUT/ansible
U=$ND_OUT/etc
LOG=$ND_OUT/ansible.log
WANTS=/etc/systemd/system/multi-user.target.wants

nd_vm_need ansible-playbook ansible-core || nd_vm_done
nd_vm_need jq jq || nd_vm_done
[ ! -e /etc/nodrop/vm-lossless.yaml ] && [ ! -e "$WANTS/nodrop-apply@vm-lossless.service" ] ||
	{ nd_vm_fail "the host already has the profile or the unit this test installs"; nd_vm_done; }
rm -rf "$A" "$U"
mkdir -p "$A/home" "$A/local" "$A/remote" "$A/tmp" "$U/upper/nodrop" "$U/work"
chmod 0755 "$U/upper/nodrop"

# ns CMD...: CMD in the namespace described above. Root makes it; anyone else through the
# project's one root rule (sh bootstrap --root: sudo).
ns() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	local mnt='mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0/upper,workdir=$0/work" /etc &&
		mount -t tmpfs ns-run /run && exec "$@"'
	if [ "$(id -u)" = 0 ]; then
		unshare -m --propagation private bash -c "$mnt" "$U" "$@"
	else
		sh bootstrap --root unshare -m --propagation private bash -c "$mnt" "$U" "$@"
	fi
}

# unshare makes the namespace's mounts private, which needs / to be a mount point: in a chroot
# whose root is a plain directory it cannot, and the plays would touch the host's /etc
why=$(ns true 2>&1) ||
	{ nd_vm_fail "no private mount namespace for the plays (${why##*$'\n'}); in a chroot, make its root a mount point: mount --bind ROOT ROOT"; nd_vm_done; }
nd_vm_serving || { nd_vm_fail "the guest never served"; nd_vm_done; }
nd_vm_g nd_vm_nicsim_load 3 || { nd_vm_fail "nicsim"; nd_vm_done; }
for dev in nicsim0 nicsim1 nicsim2; do $IP link set "$dev" up; done
nd_vm_g nd_vm_modprobe veth && $IP link add veth0 type veth peer name veth1 ||
	{ nd_vm_fail "veth"; nd_vm_done; }
# The guest's /etc (the host's, read-only) takes writes, and its /etc/nodrop is the role's.
# shellcheck disable=SC2016 # expanded in the guest
nd_vm_g bash -c 'mkdir -p /run/etc-ovl/upper /run/etc-ovl/work &&
	mount -t overlay overlay \
		-o lowerdir=/etc,upperdir=/run/etc-ovl/upper,workdir=/run/etc-ovl/work /etc &&
	mkdir -p /etc/nodrop && mount --bind "$1" /etc/nodrop' _ "$U/upper/nodrop" ||
	{ nd_vm_fail "the guest's /etc/nodrop"; nd_vm_done; }
# nodrop_bin: build/nodrop, run in the guest
printf '#!/bin/bash\nND_VM_RELAY=%q ND_VM_QEMU_UID=%q exec %q %q "$@"\n' "$ND_VM_RELAY" \
	"$(id -u)" "$ND_VM_REPO/tests/vm/in-guest.sh" "$ND" >"$A/nodrop"
chmod 0755 "$A/nodrop"

: >"$LOG"
# root already: no sudo in between (a bare Debian has none)
printf '[rdma]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3 %s\n' \
	ansible_become=false >"$A/inventory"
cat >"$A/vars.yml" <<EOF
nodrop_bin: $A/nodrop
nodrop_package_install: false
nodrop_profile_name: vm-lossless
nodrop_profile_src: $ND_VM_REPO/tests/vm/profiles/lossless.yaml
nodrop_devices: [nicsim0, nicsim1]
EOF
# inline, for nicsim2 and a veth port: veth has no DCB
cat >"$A/mixed.yml" <<EOF
nodrop_bin: $A/nodrop
nodrop_package_install: false
nodrop_profile_name: vm-mixed
nodrop_profile_src: ""
nodrop_devices: []
nodrop_profile:
  ports: {names: [nicsim2, veth0]}
  mtu: 9000
  dcbx: host
  trust: dscp
  dscp-map: {26: 3, 48: 6}
  pfc: {priorities: [3], cable-length: 30}
  ets:
    prio-tc: {all: 0, 3: 3, 6: 6}
    tsa: {all: strict, 0: ets, 3: ets}
    bandwidth: {all: 0, 0: 40, 3: 60}
  buffer:
    prio-buffer: {all: 0, 3: 1}
    size: {all: 0, 0: 128K, 1: 96K}
EOF

# play NAME ARGS...: ansible-playbook site.yml; $rc, $out (also appended to $LOG), $changed
play() {
	local name=$1 t0
	shift
	t0=$(date +%s)
	out=$(ns env HOME="$A/home" TMPDIR="$A/tmp" ANSIBLE_LOCAL_TEMP="$A/local" \
		ANSIBLE_REMOTE_TEMP="$A/remote" ANSIBLE_ROLES_PATH=contrib/ansible/roles \
		ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 SYSTEMD_OFFLINE=1 LC_ALL=C.UTF-8 \
		ansible-playbook -i "$A/inventory" contrib/ansible/site.yml "$@" 2>&1)
	rc=$?
	{
		echo "=== $name: ansible-playbook $*: exit $rc, $(($(date +%s) - t0)) s"
		echo "$out"
	} >>"$LOG"
	echo "# $name: exit $rc, $(($(date +%s) - t0)) s"
	changed=$(sed -n 's/^localhost *: .*changed=\([0-9]*\) .*/\1/p' <<<"$out")
}

has() { # DESC TEXT
	case $out in
	*"$2"*) nd_vm_pass "$1" ;;
	*) nd_vm_fail "$1: no '$2' in the output (see ansible.log)" ;;
	esac
}

jqt() { # DESC JSON EXPR
	if [ -n "$2" ] && jq -e "$3" >/dev/null 2>&1 <<<"$2"; then
		nd_vm_pass "$1"
	else
		nd_vm_fail "$1: $3 on $2"
	fi
}

pfc() { $DCB -j pfc show dev "$1"; }
pre2=$(pfc nicsim2)

# --- first run: applies ---
play apply -e @$A/vars.yml
[ "$rc" = 0 ] && nd_vm_pass "first run succeeds" || nd_vm_fail "first run: exit $rc: $(tail -30 <<<"$out")"
[ "${changed:-0}" -gt 0 ] && nd_vm_pass "first run reports changed=$changed" ||
	nd_vm_fail "first run: changed=${changed:-none}"
has "the apply task lists the PFC change it made" "nicsim0: pfc.priorities: none -> 3"
for dev in nicsim0 nicsim1; do
	jqt "$dev: PFC on 3 only, cable length 30 (dcb -j)" "$(pfc $dev)" \
		'.prio_pfc == [false,false,false,true,false,false,false,false] and .delay == 30'
	jqt "$dev: ETS as profiled (dcb -j)" "$($DCB -j ets show dev $dev)" \
		'.prio_tc == [0,0,0,3,0,0,6,0] and .tc_bw[0] == 40 and .tc_bw[3] == 60'
	jqt "$dev: MTU 9000 (ip -j link)" "$($IP -j link show dev $dev)" '.[0].mtu == 9000'
done
[ "$(pfc nicsim2)" = "$pre2" ] && nd_vm_pass "nicsim2, not in nodrop_devices, is untouched" ||
	nd_vm_fail "nicsim2 changed: $(pfc nicsim2)"
cmp -s tests/vm/profiles/lossless.yaml "$U/upper/nodrop/vm-lossless.yaml" &&
	[ "$(stat -c %a "$U/upper/nodrop" "$U/upper/nodrop/vm-lossless.yaml")" = "$(printf '755\n644')" ] &&
	nd_vm_pass "profile installed as /etc/nodrop/vm-lossless.yaml, 0644 in a 0755 directory" ||
	nd_vm_fail "profile: $(ls -la "$U/upper/nodrop")"
link=$WANTS/nodrop-apply@vm-lossless.service
# shellcheck disable=SC2016 # expanded in the namespace
[ "$(ns bash -c '[ -L "$1" ] && readlink -f "$1"' _ "$link")" = /etc/systemd/system/nodrop-apply@.service ] &&
	nd_vm_pass "unit enabled: $link -> $(readlink "$U/upper/${link#/etc/}")" ||
	nd_vm_fail "unit symlink: $(ls -la "$U/upper/${WANTS#/etc/}" 2>&1 | grep nodrop)"
unit=$U/upper/systemd/system/nodrop-apply@.service
grep -qx "ExecStart=$A/nodrop apply --wait 120 /etc/nodrop/%i.yaml" "$unit" &&
	nd_vm_pass "the unit starts nodrop_bin" || nd_vm_fail "unit: $(grep Exec "$unit")"

# --- second run: nothing to do ---
play again -e @$A/vars.yml
[ "$rc" = 0 ] && nd_vm_pass "second run succeeds" || nd_vm_fail "second run: exit $rc: $(tail -30 <<<"$out")"
[ "$changed" = 0 ] && nd_vm_pass "second run: changed=0" ||
	nd_vm_fail "second run: changed=${changed:-none}: $(grep -B2 '^changed:' <<<"$out")"

# --- check mode after an operator's change: reported, not reverted ---
$DCB pfc set dev nicsim1 prio-pfc all:off 4:on delay 30
hand=$(pfc nicsim1)
play check --check -e @$A/vars.yml
[ "$rc" = 0 ] && nd_vm_pass "check run succeeds" || nd_vm_fail "check run: exit $rc: $(tail -30 <<<"$out")"
[ "${changed:-0}" -gt 0 ] && nd_vm_pass "check run reports changed=$changed" ||
	nd_vm_fail "check run: changed=${changed:-none}"
has "the dry run ran and names the change it would make" "nicsim1: pfc.priorities: 4 -> 3"
[ "$(pfc nicsim1)" = "$hand" ] && nd_vm_pass "the operator's PFC setting is left as it was (dcb -j)" ||
	nd_vm_fail "check mode changed nicsim1: $(pfc nicsim1)"
jqt "nicsim1 still has PFC on 4 only (dcb -j)" "$(pfc nicsim1)" \
	'.prio_pfc == [false,false,false,false,true,false,false,false]'

# --- a port without DCB: apply refuses; forced, the audit fails the play ---
play refused -e @$A/mixed.yml
[ "$rc" = 2 ] && nd_vm_pass "a profile on a port without DCB fails the play" ||
	nd_vm_fail "refused: exit $rc: $(tail -30 <<<"$out")"
has "the failure is apply's refusal" "(outcome refused)"
has "it names the port, the field and the driver's reason" \
	"veth0: pfc.priorities: not supported by this driver (veth has no DCB)"
[ "$(pfc nicsim2)" = "$pre2" ] && nd_vm_pass "refused: nicsim2 untouched (dcb -j)" ||
	nd_vm_fail "refused but nicsim2 changed: $(pfc nicsim2)"

play forced -e @$A/mixed.yml -e nodrop_apply_force=true
[ "$rc" = 2 ] && nd_vm_pass "forced: the play fails" || nd_vm_fail "forced: exit $rc: $(tail -30 <<<"$out")"
has "it fails in the audit" "nodrop audit /etc/nodrop/vm-mixed.yaml exited 1"
has "with the finding: port, field, reason" \
	"veth0: pfc.priorities: not supported by this driver (veth has no DCB); wanted 3"
jqt "the forced apply did reach nicsim2 (dcb -j)" "$(pfc nicsim2)" \
	'.prio_pfc == [false,false,false,true,false,false,false,false]'
jqt "and veth0's MTU (ip -j link)" "$($IP -j link show dev veth0)" '.[0].mtu == 9000'
grep -q '^nodrop_profile:\|^ports:' "$U/upper/nodrop/vm-mixed.yaml" &&
	nd_vm_g "$ND" audit -d nicsim2 /etc/nodrop/vm-mixed.yaml >/dev/null &&
	nd_vm_pass "the inline profile was written and audits clean on nicsim2" ||
	nd_vm_fail "inline profile: $(cat "$U/upper/nodrop/vm-mixed.yaml")"
# what the root rule wrote for another user is given back to them
[ "$(id -u)" = 0 ] || sh bootstrap --root chown -R "$(id -u):$(id -g)" "$A" "$U"
nd_vm_done
