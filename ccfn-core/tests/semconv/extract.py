#!/usr/bin/env python3
"""Writes registry.json from a checkout of
https://github.com/open-telemetry/semantic-conventions at a release tag:

    python3 extract.py <checkout> <tag> > registry.json

Needs PyYAML. Keeps the attributes of the namespaces ccfn exports and the
metrics it records, with each metric's attributes resolved through
`extends` and `ref`, and the explicit bucket boundaries its document
advises.
"""
import json
import re
import subprocess
import sys

import yaml

NAMESPACES = ["http", "url", "server", "client", "user-agent", "error", "network", "faas"]
METRICS = [
    "http.server.request.duration",
    "http.client.request.duration",
    "faas.invocations",
    "faas.invoke_duration",
    "faas.coldstarts",
    "faas.mem_usage",
]
DOCS = {"http": "docs/http/http-metrics.md", "faas": "docs/faas/faas-metrics.md"}


def show(repo, tag, path):
    return subprocess.run(
        ["git", "-C", repo, "show", f"{tag}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def files(repo, tag, directory):
    out = subprocess.run(
        ["git", "-C", repo, "ls-tree", "-r", "--name-only", tag, directory],
        check=True, capture_output=True, text=True,
    ).stdout
    return [f for f in out.split() if f.endswith(".yaml") and "/deprecated/" not in f]


def type_of(declared):
    if isinstance(declared, dict):
        values = [m["value"] for m in declared["members"]]
        kind = "string" if all(isinstance(v, str) for v in values) else "int"
        return {"type": kind, "members": values}
    return {"type": declared}


def main(repo, tag):
    groups = {}
    for namespace in NAMESPACES:
        for path in files(repo, tag, f"model/{namespace}"):
            for group in yaml.safe_load(show(repo, tag, path)).get("groups", []):
                groups[group["id"]] = group
    attributes = {}
    for group in groups.values():
        if group["id"].startswith("registry."):
            for attribute in group.get("attributes", []):
                entry = type_of(attribute["type"])
                entry["stability"] = attribute.get("stability", "")
                attributes[attribute["id"]] = entry

    def resolved(group):
        out = {}
        if "extends" in group:
            out.update(resolved(groups[group["extends"]]))
        for attribute in group.get("attributes", []):
            level = attribute.get("requirement_level", "recommended")
            if isinstance(level, dict):
                level = next(iter(level))
            out[attribute["ref"]] = level
        return out

    boundaries = {}
    for namespace, doc in DOCS.items():
        text = show(repo, tag, doc)
        for section in re.split(r"\n### Metric: `", text)[1:]:
            name = section.split("`", 1)[0]
            found = re.search(r"ExplicitBucketBoundaries`[^`]*`\[([^\]]*)\]`", section)
            if found:
                boundaries[name] = [float(b) for b in found.group(1).split(",")]

    metrics = {}
    for group in groups.values():
        if group.get("type") == "metric" and group.get("metric_name") in METRICS:
            name = group["metric_name"]
            metrics[name] = {
                "instrument": group["instrument"],
                "unit": group["unit"],
                "stability": group.get("stability", ""),
                "attributes": resolved(group),
            }
            if name in boundaries:
                metrics[name]["explicit_bucket_boundaries"] = boundaries[name]
    missing = set(METRICS) - set(metrics)
    if missing:
        sys.exit(f"metrics not found: {sorted(missing)}")
    json.dump(
        {
            "source": "https://github.com/open-telemetry/semantic-conventions",
            "tag": tag,
            "namespaces": NAMESPACES,
            "attributes": dict(sorted(attributes.items())),
            "metrics": dict(sorted(metrics.items())),
        },
        sys.stdout,
        indent=1,
        sort_keys=False,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
