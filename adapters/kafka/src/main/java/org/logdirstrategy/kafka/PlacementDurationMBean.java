package org.logdirstrategy.kafka;

/**
 * kafka.log:type=LogDirectorySelector,name=PlacementDuration: how long the strategy's decisions
 * took (gathering the dirs' figures, the ranking, a fallback). Its buckets are the beans named
 * with le= as well, each counting the decisions at most that long.
 */
public interface PlacementDurationMBean {
  long getCount();

  double getSumSeconds();
}
