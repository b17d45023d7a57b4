cat /proc/uptime > /out/uptime
dmesg > /out/dmesg
