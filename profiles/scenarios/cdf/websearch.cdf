# Flow sizes of a web search cluster: "BYTES CUMULATIVE_PERCENT", linear between points.
# Source: the web search workload of DCTCP (Alizadeh et al., "Data Center TCP", SIGCOMM 2010),
# as the HPCC simulator ships it (github.com/alibaba-edu/High-Precision-Congestion-Control,
# traffic_gen/WebSearch_distribution.txt) and reference/fabric-models.md lists it.
# Mean 1.711 MB (1711250 B).
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
