echo "hello from $(uname -r) idx=$ND_VM_INDEX out=$ND_OUT mod=$ND_VM_MODDIR cwd=$PWD args=$*"
mount | grep -vE 'hostroot' | head -30
cat /proc/uptime
echo hi > /out/hello.txt
exit 7
