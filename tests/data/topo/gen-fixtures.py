#!/usr/bin/env python3
"""Writes the hwloc XML fixtures of tests/unit/test_topo.c into this folder.
Regenerate on purpose only: test_topo.c checks every number they carry.

  xeon-2s-smt.xml   2 packages, a NUMA node each (64 and 32 GiB), 4 cores per
                    package with 2 threads each, numbered as Linux does (core
                    k has CPUs k and k+8); an NVIDIA GPU on each package, an
                    ASPEED VGA and a Mellanox HCA that are not GPUs.
  epyc-1numa.xml    1 package, 1 NUMA node (32 GiB), 6 cores without SMT.
  snc2-gpus.xml     1 package split in two NUMA nodes (sub-NUMA clustering,
                    hwloc Groups), 4 cores each with 2 threads; a CPU-less
                    NUMA node (CXL memory) on the package; one GPU in the
                    second SNC domain, one attached to the whole package.

`lstopo -i FILE` shows each. A real machine's export (`lstopo --of xml`)
has the same shape with caches in between, which the probe ignores."""
import os

GIB = 1 << 30
gp = [0]


def next_gp():
    gp[0] += 1
    return gp[0]


def bits(ids):
    """hwloc bitmap text: 32-bit words, most significant first."""
    v = 0
    for i in ids:
        v |= 1 << i
    words = []
    while True:
        words.append(v & 0xffffffff)
        v >>= 32
        if v == 0:
            break
    return ",".join("0x%08x" % w for w in reversed(words))


class Obj:
    def __init__(self, type_, os_index=None, cpus=(), nodes=(), attrs=None, infos=(), children=(), mem=(), io=()):
        self.type, self.os_index, self.cpus, self.nodes = type_, os_index, list(cpus), list(nodes)
        self.attrs, self.infos = attrs or {}, list(infos)
        self.children, self.mem, self.io = list(children), list(mem), list(io)

    def xml(self, ind, root=False):
        a = ['type="%s"' % self.type]
        if self.os_index is not None:
            a.append('os_index="%d"' % self.os_index)
        if self.type not in ("Bridge", "PCIDev"):
            a += ['cpuset="%s"' % bits(self.cpus), 'complete_cpuset="%s"' % bits(self.cpus)]
            if root:
                a.append('allowed_cpuset="%s"' % bits(self.cpus))
            a += ['nodeset="%s"' % bits(self.nodes), 'complete_nodeset="%s"' % bits(self.nodes)]
            if root:
                a.append('allowed_nodeset="%s"' % bits(self.nodes))
        a.append('gp_index="%d"' % next_gp())
        a += ['%s="%s"' % kv for kv in self.attrs.items()]
        sp = "  " * ind
        inner = ['%s  <info name="%s" value="%s"/>' % (sp, k, v) for k, v in self.infos]
        if self.type == "NUMANode":
            inner.append('%s  <page_type size="4096" count="%d"/>' % (sp, int(self.attrs["local_memory"]) // 4096))
        for c in self.mem + self.children + self.io:
            inner.append(c.xml(ind + 1))
        if not inner:
            return "%s<object %s/>" % (sp, " ".join(a))
        return "%s<object %s>\n%s\n%s</object>" % (sp, " ".join(a), "\n".join(inner), sp)


def numa(os_index, cpus, gib):
    return Obj("NUMANode", os_index, cpus, [os_index], {"local_memory": str(gib * GIB)})


def core(os_index, pus, node):
    return Obj("Core", os_index, pus, [node], children=[Obj("PU", p, [p], [node]) for p in pus])


def pcidev(busid, cls, vendor, device):
    return Obj("PCIDev", attrs={"pci_busid": busid, "pci_type": "%04x [%04x:%04x] [%04x:0000] a1" % (cls, vendor, device, vendor),
                                "pci_link_speed": "0.000000"})


def hostbridge(bus, devs):
    return Obj("Bridge", attrs={"bridge_type": "0-1", "depth": "0", "bridge_pci": "0000:[%02x-%02x]" % (bus, bus)},
               children=devs)


def machine(children, mem=(), infos=()):
    cpus = sorted({c for o in children for c in o.cpus})
    nodes = sorted({n for o in list(children) + list(mem) for n in o.nodes} |
                   {m.os_index for o in children for m in o.mem} |
                   {m.os_index for o in children for g in o.children for m in g.mem})
    return Obj("Machine", 0, cpus, nodes, infos=[("Backend", "Linux"), ("hwlocVersion", "2.9.0")] + list(infos),
               children=children, mem=mem)


def write(name, root):
    gp[0] = 0
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
                '<topology version="2.0">\n%s\n'
                '  <support name="discovery.pu"/>\n  <support name="discovery.numa"/>\n'
                '  <support name="discovery.numa_memory"/>\n</topology>\n' % root.xml(1, root=True))


def xeon():
    pkgs = []
    for p in range(2):
        cores = [core(4 * p + k, [4 * p + k, 4 * p + k + 8], p) for k in range(4)]
        cpus = sorted(c for co in cores for c in co.cpus)
        io = [hostbridge(0x1b, [pcidev("0000:1b:00.0", 0x0302, 0x10de, 0x2330)]),
              hostbridge(0x03, [pcidev("0000:03:00.0", 0x0300, 0x1a03, 0x2000)])] if p == 0 else \
             [hostbridge(0xca, [pcidev("0000:ca:00.0", 0x0302, 0x10de, 0x2335), pcidev("0000:ca:00.1", 0x0207, 0x15b3, 0x101b)])]
        pkgs.append(Obj("Package", p, cpus, [p], infos=[("CPUVendor", "GenuineIntel"),
                        ("CPUModel", "Intel(R) Xeon(R) Platinum 8480+")],
                        mem=[numa(p, cpus, 64 if p == 0 else 32)], children=cores, io=io))
    return machine(pkgs)


def epyc():
    cores = [core(k, [k], 0) for k in range(6)]
    pkg = Obj("Package", 0, list(range(6)), [0], infos=[("CPUModel", "AMD EPYC 9254 24-Core Processor")],
              mem=[numa(0, list(range(6)), 32)], children=cores)
    return machine([pkg])


def snc():
    groups = []
    for g in range(2):
        cores = [core(4 * g + k, [4 * g + k, 4 * g + k + 8], g) for k in range(4)]
        cpus = sorted(c for co in cores for c in co.cpus)
        io = [hostbridge(0xca, [pcidev("0000:ca:00.0", 0x0302, 0x10de, 0x2335)])] if g == 1 else []
        groups.append(Obj("Group", None, cpus, [g], mem=[numa(g, cpus, 128)], children=cores, io=io))
    allc = list(range(16))
    pkg = Obj("Package", 0, allc, [0, 1, 2], infos=[("CPUModel", "Intel(R) Xeon(R) Platinum 8580")],
              mem=[numa(2, allc, 256)], children=groups,
              io=[hostbridge(0x1b, [pcidev("0000:1b:00.0", 0x0302, 0x10de, 0x2335)])])
    return machine([pkg])


write("xeon-2s-smt.xml", xeon())
write("epyc-1numa.xml", epyc())
write("snc2-gpus.xml", snc())
