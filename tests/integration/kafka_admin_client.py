#!/usr/bin/python3
# kafka_admin_client.py: one CreateTopics or DeleteTopics sent by kafka-python's KafkaAdminClient,
# unmodified, for kafka_listener_test.cpp. Prints one JSON line: {"error_code": N, "message": TEXT}.
# Debian's python3-kafka imports only under /usr/bin/python3.
#
#   kafka_admin_client.py ADDR create NAME PARTITIONS REPLICATION [validate] [assign=BROKER]
#   kafka_admin_client.py ADDR delete NAME
import json
import sys

from kafka import KafkaAdminClient
from kafka.admin import NewTopic
from kafka.errors import KafkaError


def main(argv):
    address, op, name = argv[1], argv[2], argv[3]
    client = KafkaAdminClient(bootstrap_servers=address, request_timeout_ms=20000)
    code, message = 0, ""
    try:
        if op == "create":
            partitions, replication = int(argv[4]), int(argv[5])
            flags = argv[6:]
            assignments = None
            for flag in flags:
                if flag.startswith("assign="):
                    assignments = {0: [int(flag.split("=", 1)[1])]}
            topic = NewTopic(name, partitions, replication, replica_assignments=assignments)
            client.create_topics([topic], validate_only="validate" in flags)
        elif op == "delete":
            response = client.delete_topics([name])
            for _topic, error_code in response.topic_error_codes:
                code = error_code
        else:
            raise SystemExit("unknown operation " + op)
    except KafkaError as e:
        code, message = getattr(e, "errno", -1), str(e)
    finally:
        client.close()
    print(json.dumps({"error_code": code, "message": message}))


if __name__ == "__main__":
    main(sys.argv)
