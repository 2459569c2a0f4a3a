"""Drives Apache libcloud's PowerDNS driver (python3-libcloud, api_version v1) against the host and port of
ZONEHOST_V3_ENDPOINT (the driver takes host and port; its paths are PowerDNS's own, under /api/v1).

Usage: python3 libcloud_pdns.py KEY COMMAND [ARGS...]; prints the result as JSON. Commands:
  list-zones | create-zone DOMAIN NAMESERVER | get-zone ZONE_ID | delete-zone ZONE_ID
  list-records ZONE_ID | create-record ZONE_ID NAME TYPE DATA TTL
  update-record ZONE_ID NAME TYPE DATA TTL | delete-record ZONE_ID NAME TYPE
A libcloud exception is printed as {"error": class name, "message": text} with exit status 3.
"""
import json
import sys

from zonehost_endpoint import host_port
from libcloud.dns.drivers.powerdns import PowerDNSDriver

host, port = host_port()
key, command, *args = sys.argv[1:]
driver = PowerDNSDriver(key, secure=False, host=host, port=port, api_version="v1")


def zone_json(z):
    return {"id": z.id, "domain": z.domain, "type": z.type, "ttl": z.ttl, "extra": z.extra}


def record_json(r):
    return {"name": r.name, "type": r.type, "data": r.data, "ttl": r.ttl}


def find_record(zone, name, rtype):
    return next(r for r in driver.list_records(zone) if r.name == name and r.type == rtype)


def run():
    if command == "list-zones":
        return [zone_json(z) for z in driver.list_zones()]
    if command == "create-zone":
        domain, nameserver = args
        return zone_json(driver.create_zone(domain, extra={"nameservers": [nameserver]}))
    if command == "get-zone":
        return zone_json(driver.get_zone(args[0]))
    if command == "delete-zone":
        return driver.delete_zone(driver.get_zone(args[0]))
    if command == "list-records":
        return [record_json(r) for r in driver.list_records(driver.get_zone(args[0]))]
    if command == "create-record":
        zone_id, name, rtype, data, ttl = args
        return record_json(driver.create_record(name, driver.get_zone(zone_id), rtype, data, extra={"ttl": int(ttl)}))
    if command == "update-record":
        zone_id, name, rtype, data, ttl = args
        record = find_record(driver.get_zone(zone_id), name, rtype)
        return record_json(driver.update_record(record, name, rtype, data, extra={"ttl": int(ttl)}))
    if command == "delete-record":
        zone_id, name, rtype = args
        return driver.delete_record(find_record(driver.get_zone(zone_id), name, rtype))
    raise SystemExit(f"unknown command {command}")


try:
    print(json.dumps(run()))
except Exception as e:  # every libcloud error is reported, so the test can assert which one
    if type(e).__module__.startswith("libcloud"):
        print(json.dumps({"error": type(e).__name__, "message": str(e)}))
        sys.exit(3)
    raise
