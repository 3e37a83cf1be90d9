/**
 * High availability: replication of logical units between a pair of daemons, a primary that
 * serves initiators and a secondary that keeps a copy (issue 17).
 *
 * <p>{@link org.jtarget.ha.DirtyRegionLog} is the primary's record of the regions the secondary
 * may lack: the regions written while the secondary was away, and, after a crash of either node,
 * the regions of the writes that were in flight, so that a returning secondary is resynchronised
 * region by region instead of copied whole.
 */
package org.jtarget.ha;
