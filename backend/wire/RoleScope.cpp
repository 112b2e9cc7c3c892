#include "RoleScope.h"

namespace hips {

static thread_local RoleScope* t_scope = nullptr;
static std::mutex g_memoryLock;
static const RoleScope* g_memorySpeaker = nullptr;  // the shared process's role that reports its memory (never dereferenced)

void RoleScope::attach(zmq::context_t* context) {
    std::lock_guard<std::mutex> lock(m_lock);
    m_context = context;
    if (m_context && m_stop) m_context->shutdown();
}

void RoleScope::requestStop() {
    std::lock_guard<std::mutex> lock(m_lock);
    m_stop = true;
    if (m_context) m_context->shutdown();
}

bool RoleScope::stopRequested() const {
    std::lock_guard<std::mutex> lock(m_lock);
    return m_stop;
}

void setThreadRoleScope(RoleScope* scope) {
    t_scope = scope;
}

bool speaksForProcessMemory() {
    if (!t_scope) return true;
    std::lock_guard<std::mutex> lock(g_memoryLock);
    if (!g_memorySpeaker) g_memorySpeaker = t_scope;
    return g_memorySpeaker == t_scope;
}

RoleScope* threadRoleScope() {
    return t_scope;
}

FILE* roleOut() {
    return t_scope && t_scope->out ? t_scope->out : stdout;
}

FILE* roleErr() {
    return t_scope && t_scope->err ? t_scope->err : stderr;
}

QByteArray roleVariable(const char* name) {
    return t_scope ? t_scope->variables.value(QByteArray(name)) : qgetenv(name);
}

}  // namespace hips
