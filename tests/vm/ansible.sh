#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Ansible role contrib/ansible/roles/nodrop (through the example contrib/ansible/site.yml)
# against nicsim ports, iproute2 as the oracle: the first run applies and reports changed, the
# second changes nothing, --check runs the dry run and leaves an operator's setting alone, a
# profile whose audit fails fails the play with the finding, and the boot unit is enabled.
# Run inside the guest by `make vm-ansible`.
set -u
. tests/vm/guest-lib.sh

ND=$(realpath "${ND_NODROP:-build/nodrop}")
DCB=nd_vm_dcb
IP=/usr/sbin/ip
A=/tmp/ansible
LOG=$ND_OUT/ansible.log
WANTS=/etc/systemd/system/multi-user.target.wants

nd_vm_need ansible-playbook ansible-core || nd_vm_done

# /etc is the host's, read-only: the role writes /etc/nodrop and /etc/systemd/system into an
# overlay whose upper layer lives in /run.
mkdir -p /run/etc-ovl/upper /run/etc-ovl/work
/usr/bin/mount -t overlay overlay \
	-o lowerdir=/etc,upperdir=/run/etc-ovl/upper,workdir=/run/etc-ovl/work /etc ||
	{ nd_vm_fail "overlay over /etc"; nd_vm_done; }
[ ! -e /etc/nodrop/vm-lossless.yaml ] && [ ! -e "$WANTS/nodrop-apply@vm-lossless.service" ] ||
	{ nd_vm_fail "the host already has the profile or the unit this test installs"; nd_vm_done; }

nd_vm_nicsim_load 3 || { nd_vm_fail "nicsim"; nd_vm_done; }
for dev in nicsim0 nicsim1 nicsim2; do $IP link set "$dev" up; done
nd_vm_modprobe veth && $IP link add veth0 type veth peer name veth1 ||
	{ nd_vm_fail "veth"; nd_vm_done; }

mkdir -p $A/home $A/local $A/remote
: >"$LOG"
printf '[rdma]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n' \
	>$A/inventory
cat >$A/vars.yml <<EOF
nodrop_bin: $ND
nodrop_package_install: false
nodrop_profile_name: vm-lossless
nodrop_profile_src: $ND_VM_REPO/tests/vm/profiles/lossless.yaml
nodrop_devices: [nicsim0, nicsim1]
EOF
# inline, for nicsim2 and a veth port: veth has no DCB
cat >$A/mixed.yml <<EOF
nodrop_bin: $ND
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
	out=$(HOME=$A/home ANSIBLE_LOCAL_TEMP=$A/local ANSIBLE_REMOTE_TEMP=$A/remote \
		ANSIBLE_ROLES_PATH=contrib/ansible/roles ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
		LC_ALL=C.UTF-8 ansible-playbook -i $A/inventory contrib/ansible/site.yml "$@" 2>&1)
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
cmp -s tests/vm/profiles/lossless.yaml /etc/nodrop/vm-lossless.yaml &&
	[ "$(stat -c %a /etc/nodrop /etc/nodrop/vm-lossless.yaml)" = "$(printf '755\n644')" ] &&
	nd_vm_pass "profile installed as /etc/nodrop/vm-lossless.yaml, 0644 in a 0755 directory" ||
	nd_vm_fail "profile: $(ls -la /etc/nodrop)"
link=$WANTS/nodrop-apply@vm-lossless.service
[ -L "$link" ] && [ "$(readlink -f "$link")" = /etc/systemd/system/nodrop-apply@.service ] &&
	nd_vm_pass "unit enabled: $link -> $(readlink "$link")" ||
	nd_vm_fail "unit symlink: $(ls -la "$WANTS" 2>&1 | grep nodrop)"
grep -qx "ExecStart=$ND apply --wait 120 /etc/nodrop/%i.yaml" /etc/systemd/system/nodrop-apply@.service &&
	nd_vm_pass "the unit starts nodrop_bin" ||
	nd_vm_fail "unit: $(grep Exec /etc/systemd/system/nodrop-apply@.service)"

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
grep -q '^nodrop_profile:\|^ports:' /etc/nodrop/vm-mixed.yaml &&
	"$ND" audit -d nicsim2 /etc/nodrop/vm-mixed.yaml >/dev/null &&
	nd_vm_pass "the inline profile was written and audits clean on nicsim2" ||
	nd_vm_fail "inline profile: $(cat /etc/nodrop/vm-mixed.yaml)"
nd_vm_done
