#!/usr/bin/python3
# kafka_produce.py: the torture test's Kafka client. confluent-kafka's Producer (librdkafka),
# unmodified, sends the messages of standard input ("KEY<TAB>VALUE" lines) to one partition
# through the broker's Kafka listener with acks=all and no retries, so that each message is
# written once or not at all. Prints one JSON line per message, as its delivery report gives it:
# {"key": KEY, "offset": N} or {"key": KEY, "error": TEXT}; then {"done": true}.
# Debian's python3-confluent-kafka imports only under /usr/bin/python3.
#
#   kafka_produce.py HOST:PORT TOPIC PARTITION < messages
import json
import sys

from confluent_kafka import KafkaException, Producer


def main():
    address, topic, partition = sys.argv[1], sys.argv[2], int(sys.argv[3])
    producer = Producer({
        "bootstrap.servers": address,
        "acks": "all",
        "retries": 0,
        "enable.idempotence": False,
        "message.timeout.ms": 5000,
        "socket.timeout.ms": 5000,
        "linger.ms": 5,
    })

    def report(err, msg):
        key = msg.key().decode()
        if err is not None:
            print(json.dumps({"key": key, "error": str(err)}), flush=True)
        else:
            print(json.dumps({"key": key, "offset": msg.offset()}), flush=True)

    for line in sys.stdin:
        key, value = line.rstrip("\n").split("\t", 1)
        try:
            producer.produce(topic, value=value.encode(), key=key.encode(), partition=partition,
                             on_delivery=report)
        except (BufferError, KafkaException) as e:
            print(json.dumps({"key": key, "error": "not sent: " + str(e)}), flush=True)
        producer.poll(0)
    left = producer.flush(15)
    print(json.dumps({"done": left == 0, "undelivered": left}), flush=True)


if __name__ == "__main__":
    main()
