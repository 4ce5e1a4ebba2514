#!/usr/bin/env python3
"""Writes pods.json and nodes.json of this folder (see SOURCE.md): what
`kubectl get pods -A -o json` and `kubectl get nodes -o json` print for a
small GPU cluster, field for field as the Kubernetes API reference (v1 Pod,
v1 Node) gives them. Run it from this folder to regenerate on purpose."""
import json

GPU_TOL = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
DEFAULT_TOLS = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]


def cs(name, state):
    return {"name": name, "image": "x", "imageID": "", "containerID": "containerd://abc", "ready": "running" in state,
            "restartCount": 0, "started": "running" in state, "state": state}


def pod(ns, name, created, spec, status, uid, annotations=None, labels=None, owner=None):
    md = {"name": name, "namespace": ns, "uid": uid, "resourceVersion": "1234", "creationTimestamp": created}
    if annotations:
        md["annotations"] = annotations
    if labels:
        md["labels"] = labels
    if owner:
        md["ownerReferences"] = [owner]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


def container(name, requests=None, limits=None, image="nvcr.io/nvidia/pytorch:24.03-py3"):
    c = {"name": name, "image": image, "imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log",
         "terminationMessagePolicy": "File", "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    return c


def spec(containers, gpu=True, **kw):
    s = {"containers": containers, "restartPolicy": kw.pop("restartPolicy", "Never"), "schedulerName": kw.pop("schedulerName", "default-scheduler"),
         "serviceAccountName": "default", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
         "nodeName": kw.pop("nodeName", "gpu-a100-0"),
         "tolerations": DEFAULT_TOLS + ([GPU_TOL] if gpu else [])}
    s.update(kw)
    return s


def done(phase, start, cstart, finish, code, reason=None, ip="10.244.1.12"):
    t = {"exitCode": code, "reason": reason or ("Completed" if code == 0 else "Error"), "startedAt": cstart, "finishedAt": finish,
         "containerID": "containerd://abc"}
    return {"phase": phase, "hostIP": "192.168.10.21", "podIP": ip, "podIPs": [{"ip": ip}], "qosClass": "Burstable",
            "startTime": start, "conditions": [{"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": start}],
            "containerStatuses": [cs("main", {"terminated": t})]}


items = []
# 0: a 4-GPU training pod on A100s (nodeSelector on the GFD product), succeeded
items.append(pod("ml-team", "train-resnet-0", "2024-05-01T10:00:00Z",
    spec([container("main", {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"}, {"memory": "64Gi", "nvidia.com/gpu": "4"})],
         nodeSelector={"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}, priorityClassName="training"),
    done("Succeeded", "2024-05-01T10:00:05Z", "2024-05-01T10:00:40Z", "2024-05-01T12:00:05Z", 0), "1b0c6f5e-0001-4c7a-9a51-000000000001"))
# 1: one H100 by required node affinity (and a GPU memory bound), failed
items.append(pod("ml-team", "finetune-llama-x7k2p", "2024-05-01T10:05:00Z",
    spec([container("trainer", {"cpu": "8", "memory": "32Gi"}, {"nvidia.com/gpu": 1})],
         affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
             {"key": "nvidia.com/gpu.product", "operator": "In", "values": ["NVIDIA-H100-80GB-HBM3"]},
             {"key": "nvidia.com/gpu.memory", "operator": "Gt", "values": ["40000"]}]}]}}}, nodeName="gpu-h100-0"),
    done("Failed", "2024-05-01T10:05:02Z", "2024-05-01T10:05:30Z", "2024-05-01T10:35:02Z", 137, "OOMKilled"), "1b0c6f5e-0001-4c7a-9a51-000000000002",
    owner={"apiVersion": "batch/v1", "kind": "Job", "name": "finetune-llama", "uid": "9d1", "controller": True, "blockOwnerDeletion": True}))
# 2: an inference replica on a MIG slice, still running
items.append(pod("inference", "llm-server-7f9c8d6b5-abcde", "2024-05-01T11:00:00Z",
    spec([container("server", {"cpu": "500m", "memory": "8Gi", "nvidia.com/mig-1g.10gb": "1"}, {"cpu": "1", "memory": "8Gi", "nvidia.com/mig-1g.10gb": "1"})],
         restartPolicy="Always", priorityClassName="production", nodeName="gpu-a100-mig-0"),
    {"phase": "Running", "hostIP": "192.168.10.23", "podIP": "10.244.3.7", "qosClass": "Burstable", "startTime": "2024-05-01T11:00:03Z",
     "containerStatuses": [cs("server", {"running": {"startedAt": "2024-05-01T11:00:20Z"}})]}, "1b0c6f5e-0001-4c7a-9a51-000000000003",
    labels={"app": "llm-server", "pod-template-hash": "7f9c8d6b5"},
    owner={"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "llm-server-7f9c8d6b5", "uid": "77a", "controller": True, "blockOwnerDeletion": True}))
# 3: a HAMi shared GPU (memory and cores), succeeded
items.append(pod("research", "notebook-alice", "2024-05-01T11:30:00Z",
    spec([container("jupyter", {"cpu": "2", "memory": "4096Mi"}, {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "8000", "nvidia.com/gpucores": "30"})],
         schedulerName="hami-scheduler", nodeName="gpu-a100-1"),
    done("Succeeded", "2024-05-01T11:30:01Z", "2024-05-01T11:30:10Z", "2024-05-01T13:30:01Z", 0), "1b0c6f5e-0001-4c7a-9a51-000000000004"))
# 4: a CPU job (no GPU toleration) whose init container asks for more than its app container, succeeded
s = spec([container("etl", {"cpu": "4", "memory": "16G"}, image="python:3.12")], gpu=False, nodeName="cpu-0")
s["initContainers"] = [container("fetch", {"cpu": "8", "memory": "2Gi"}, image="busybox:1.36")]
items.append(pod("data", "etl-nightly-28571234-q8xz2", "2024-05-01T12:00:00Z", s,
    done("Succeeded", "2024-05-01T12:00:01Z", "2024-05-01T12:00:09Z", "2024-05-01T12:40:01Z", 0), "1b0c6f5e-0001-4c7a-9a51-000000000005",
    owner={"apiVersion": "batch/v1", "kind": "Job", "name": "etl-nightly-28571234", "uid": "5e5", "controller": True, "blockOwnerDeletion": True}))
# 5, 6: a Volcano job of two 8-GPU workers (one PodGroup), succeeded
for k in range(2):
    items.append(pod("ml-team", "pytorch-ddp-worker-%d" % k, "2024-05-01T12:10:0%dZ" % k,
        spec([container("pytorch", {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "8"}, {"nvidia.com/gpu": "8"})],
             schedulerName="volcano", nodeName="gpu-a100-%d" % k),
        done("Succeeded", "2024-05-01T12:10:30Z", "2024-05-01T12:10:45Z", "2024-05-01T14:10:3%dZ" % k, 0), "1b0c6f5e-0001-4c7a-9a51-00000000001%d" % k,
        annotations={"scheduling.k8s.io/group-name": "pytorch-ddp-1b0c6f5e", "volcano.sh/job-name": "pytorch-ddp", "volcano.sh/task-spec": "worker"},
        labels={"volcano.sh/job-name": "pytorch-ddp", "volcano.sh/job-namespace": "ml-team"},
        owner={"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "pytorch-ddp", "uid": "6f6", "controller": True, "blockOwnerDeletion": True}))
# 7: still pending: never ran
p = pod("ml-team", "train-big-pending", "2024-05-01T14:00:00Z",
    spec([container("main", {"cpu": "64", "memory": "512Gi"}, {"nvidia.com/gpu": "8"})]),
    {"phase": "Pending", "qosClass": "Burstable", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
     "message": "0/5 nodes are available: 5 Insufficient nvidia.com/gpu.", "lastProbeTime": None, "lastTransitionTime": "2024-05-01T14:00:00Z"}]},
    "1b0c6f5e-0001-4c7a-9a51-000000000007")
del p["spec"]["nodeName"]
items.append(p)
# 8: two H100s, running (its containers' start only)
items.append(pod("ml-team", "eval-h100", "2024-05-01T14:30:00Z",
    spec([container("eval", {"cpu": "16", "memory": "128Gi"}, {"nvidia.com/gpu": "2"})], nodeName="gpu-h100-0",
         nodeSelector={"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
    {"phase": "Running", "hostIP": "192.168.10.24", "podIP": "10.244.4.9", "qosClass": "Burstable",
     "containerStatuses": [cs("eval", {"running": {"startedAt": "2024-05-01T14:30:12Z"}})]}, "1b0c6f5e-0001-4c7a-9a51-000000000008"))
with open("pods.json", "w") as f:
    f.write(json.dumps({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}, indent=4) + "\n")


def node(name, cpu_cap, cpu_alloc, mem_cap, mem_alloc, gpus=None, labels=None, taints=None, extra=None):
    lab = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
           "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    lab.update(labels or {})
    cap = {"cpu": cpu_cap, "ephemeral-storage": "1921208768Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": mem_cap, "pods": "110"}
    alloc = {"cpu": cpu_alloc, "ephemeral-storage": "1770592058476", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": mem_alloc, "pods": "110"}
    if gpus is not None:
        cap["nvidia.com/gpu"] = gpus
        alloc["nvidia.com/gpu"] = gpus
    for k, v in (extra or {}).items():
        cap[k] = v
        alloc[k] = v
    n = {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": name, "uid": "0f0-" + name, "resourceVersion": "99", "creationTimestamp": "2024-01-15T08:00:00Z", "labels": lab,
                      "annotations": {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
         "spec": {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"]},
         "status": {"capacity": cap, "allocatable": alloc,
                    "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
                                    "lastHeartbeatTime": "2024-05-01T15:00:00Z", "lastTransitionTime": "2024-01-15T08:01:00Z"}],
                    "addresses": [{"type": "InternalIP", "address": "192.168.10.20"}, {"type": "Hostname", "address": name}],
                    "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://1.7.13", "kernelVersion": "5.15.0-105-generic",
                                 "kubeProxyVersion": "v1.29.4", "kubeletVersion": "v1.29.4", "operatingSystem": "linux", "osImage": "Ubuntu 22.04.4 LTS"}}}
    if taints:
        n["spec"]["taints"] = taints
    return n


def gfd(product, count, mem, strategy="none", family="ampere", major="8"):
    return {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": product, "nvidia.com/gpu.count": str(count),
            "nvidia.com/gpu.memory": str(mem), "nvidia.com/gpu.family": family, "nvidia.com/gpu.compute.major": major,
            "nvidia.com/gpu.compute.minor": "0", "nvidia.com/gpu.machine": "DGX-A100", "nvidia.com/mig.capable": "true",
            "nvidia.com/mig.strategy": strategy, "nvidia.com/cuda.driver.major": "550", "feature.node.kubernetes.io/pci-10de.present": "true"}


GPU_TAINT = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
nodes = [
    node("cp-0", "8", "7800m", "32863884Ki", "32761484Ki", labels={"node-role.kubernetes.io/control-plane": ""},
         taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]),
    node("gpu-a100-0", "128", "127500m", "1056645068Ki", "1056542668Ki", "8", gfd("NVIDIA-A100-SXM4-80GB", 8, 81920), taints=GPU_TAINT),
    node("gpu-a100-1", "128", "127500m", "1056645068Ki", "1056542668Ki", "8", gfd("NVIDIA-A100-SXM4-80GB", 8, 81920), taints=GPU_TAINT),
    node("gpu-a100-mig-0", "128", "127500m", "1056645068Ki", "1056542668Ki", "4",
         dict(gfd("NVIDIA-A100-SXM4-80GB", 8, 81920, "mixed"), **{"nvidia.com/mig.config": "all-1g.10gb"}),
         taints=GPU_TAINT, extra={"nvidia.com/mig-1g.10gb": "28"}),
    node("gpu-h100-0", "224", "223", "2113290240Ki", "2113187840Ki", "8", gfd("NVIDIA-H100-80GB-HBM3", 8, 81559, family="hopper", major="9"),
         taints=GPU_TAINT),
    node("cpu-0", "64", "63500m", "263862776Ki", "263760376Ki"),
]
with open("nodes.json", "w") as f:
    f.write(json.dumps({"apiVersion": "v1", "items": nodes, "kind": "List", "metadata": {"resourceVersion": ""}}, indent=4) + "\n")
