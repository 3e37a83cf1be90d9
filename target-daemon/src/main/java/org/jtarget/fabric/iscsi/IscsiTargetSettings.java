package org.jtarget.fabric.iscsi;

/**
 * What the iSCSI fabric keeps with a target in the core's {@code TargetRegistry} besides its
 * core: the alias sent at login and its CHAP secrets.
 *
 * @param alias TargetAlias, or null
 * @param chap  CHAP credentials, or null for AuthMethod=None
 */
public record IscsiTargetSettings(String alias, ChapCredentials chap) {
}
