# SPDX-License-Identifier: GPL-2.0
# Bar chart of baseline/wsched ratios (> 1: wsched faster).
# gnuplot -e "datafile='...'; outfile='...'; title='...'" chart.gp
set terminal pngcairo size 1400,650 noenhanced
set output outfile
set title title
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.7
set logscale y
set ylabel 'baseline time / wsched time (log; > 1: wsched faster)'
set offsets 0, 0, graph 0.08, 0
set grid ytics
set xtics rotate by -30 scale 0
set key off
set bmargin 7
set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb 'red'
plot datafile using 2:xtic(1) lc rgb '#4477aa', \
     '' using 0:2:(sprintf('%.2f', $2)) with labels offset 0,1
