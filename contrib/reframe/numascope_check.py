# ReFrame regression test for numascope (issue 33): runs `numascope run` on a node through the
# system's launcher, exports the run's headline figures with `numascope report --openmetrics`,
# and extracts the local read bandwidth and local idle latency (the run's reference figures,
# medians) as performance variables checked against references.
#
#   reframe -c contrib/reframe/numascope_check.py -r \
#       -S numascope=/usr/local/bin/numascope \
#       -S ref_bandwidth_mb_s=17000 -S ref_latency_ns=120
#
# A reference of 0 (the default) records the figure without a bound. The bounds are the
# fractions `bandwidth_tolerance` (default -0.2: at most 20 % below) and `latency_tolerance`
# (default +0.25: at most 25 % above); set them with -S as well. `parts` chooses what
# `numascope run --only` measures (default: the node tables the reference figures come from).

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (performance_function, run_before,
                                   sanity_function, variable)


@rfm.simple_test
class NumascopeMemoryCheck(rfm.RunOnlyRegressionTest):
    descr = 'numascope: local memory bandwidth and idle latency of a node'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    num_tasks = 1
    num_tasks_per_node = 1
    numascope = variable(str, value='numascope')
    parts = variable(str, value='latency-matrix,bandwidth-matrix')
    budget = variable(str, value='--quick')
    ref_bandwidth_mb_s = variable(float, value=0.0)
    ref_latency_ns = variable(float, value=0.0)
    bandwidth_tolerance = variable(float, value=-0.2)
    latency_tolerance = variable(float, value=0.25)
    tags = {'numascope', 'memory'}

    @run_before('run')
    def set_command(self):
        self.executable = self.numascope
        self.executable_opts = ['run', self.budget, '--only', self.parts,
                                '--output', 'numascope-out', '--force']
        self.postrun_cmds = [
            f'{self.numascope} report numascope-out/results.json '
            f'--openmetrics numascope.prom --force'
        ]

    @run_before('performance')
    def set_references(self):
        refs = {}
        if self.ref_bandwidth_mb_s > 0:
            refs['local_read_bandwidth'] = (self.ref_bandwidth_mb_s,
                                            self.bandwidth_tolerance, None,
                                            'MB/s')
        if self.ref_latency_ns > 0:
            refs['local_idle_latency'] = (self.ref_latency_ns, None,
                                          self.latency_tolerance, 'ns')
        self.reference = {'*': refs}

    def _median(self, family, figure):
        regex = (rf'^{family}\{{[^}}]*figure="{figure}"[^}}]*'
                 rf'bound="median"\}} (\S+)$')
        return sn.extractsingle(regex, 'numascope.prom', 1, float)

    @sanity_function
    def validate(self):
        return sn.all([
            sn.assert_found(r'(?m)^run in \d+ s', self.stdout),
            sn.assert_found(r'^# EOF$', 'numascope.prom'),
        ])

    @performance_function('MB/s')
    def local_read_bandwidth(self):
        return self._median('numascope_bandwidth_bytes_per_second',
                            'reference-bandwidth/local-read') / 1e6

    @performance_function('ns')
    def local_idle_latency(self):
        return self._median('numascope_latency_seconds',
                            'reference-latency/local-idle') * 1e9
