package org.logdirstrategy.kafka;

/**
 * kafka.log:type=LogDirectorySelector,name=LogDir,logDirectory="path": one log dir's space, read
 * from the file system when asked, and the placements the strategies made in it.
 */
public interface LogDirFiguresMBean {
  long getTotalBytes();

  long getUsableBytes();

  /** Used over total, 0 to 1; NaN when the file system reports no size. */
  double getFillRatio();

  long getPlacements();
}
