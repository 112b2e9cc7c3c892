#include "Designer.h"

#include "LiteralText.h"

#include "DesignerScene.h"
#include "DesignerView.h"
#include "Palette.h"
#include "PropertyPanel.h"
#include "TopologyAdvice.h"

#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QCursor>
#include <cmath>
#include <QMenu>
#include <QScopedValueRollback>
#include <QToolTip>
#include <QSplitter>
#include <QVBoxLayout>

namespace hips {

Designer::Designer(QWidget* parent)
    : QWidget(parent),
      m_scene(new DesignerScene(this)),
      m_view(new DesignerView(m_scene)),
      m_palette(new Palette),
      m_properties(new PropertyPanel),
      m_issueList(new QListWidget) {
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(new QLabel(tr("Palette — drag onto the canvas")));
    leftLayout->addWidget(m_palette);
    m_palette->setMaximumWidth(220);

    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(m_properties);
    auto* issuesBox = new QWidget;
    auto* issuesLayout = new QVBoxLayout(issuesBox);
    issuesLayout->setContentsMargins(0, 0, 0, 0);
    issuesLayout->addWidget(new QLabel(tr("Validation")));
    issuesLayout->addWidget(m_issueList);
    m_issueList->setWordWrap(true);
    right->addWidget(issuesBox);
    right->setSizes({520, 200});

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(m_view);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({170, 660, 360});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(m_scene, &DesignerScene::editRequested, this, [this](const QString& text, const Topology& after) {
        const QList<ElementRef> before = m_scene->elements();
        apply(text, after);
        selectAdded(before);
    });
    // A refused gesture says why where the user looks (at the pointer), and in the status bar.
    connect(m_scene, &DesignerScene::refused, this, [this](const QString& why) {
        QToolTip::showText(QCursor::pos(), literalToolTip(why), m_view);
        Q_EMIT message(why);
    });
    connect(m_properties, &PropertyPanel::refused, this, &Designer::message);
    connect(m_properties, &PropertyPanel::editRequested, this, [this](const QString& text, const Topology& after, const QString& key) {
        m_selectAfterEdit = m_properties->element();
        apply(text, after, key);
        m_selectAfterEdit.reset();
    });
    connect(m_scene, &QGraphicsScene::selectionChanged, this, [this] {
        if (!m_redrawing) m_properties->show(topology(), m_scene->selectedElements());
    });
    connect(m_scene, &DesignerScene::editWanted, this, [this] { m_properties->focusFirstField(); });
    connect(m_scene, &DesignerScene::contextMenuWanted, this, [this](QPoint screenPos, QPointF scenePos) {
        QMenu* menu = contextMenu(scenePos);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(screenPos);
    });
    // A click on a message selects what it is about (a double click was needed, and a host's selected nothing).
    const auto selectIssueElement = [this](QListWidgetItem* item) {
        const ElementRef ref = edits::elementForIssuePath(topology(), item->data(Qt::UserRole).toString());
        if (ref.kind != ElementRef::Kind::None) m_scene->selectElements({ref});
    };
    connect(m_issueList, &QListWidget::itemClicked, this, selectIssueElement);
    connect(m_issueList, &QListWidget::itemActivated, this, selectIssueElement);
    m_document.setSelectionSource([this] { return m_scene->selectedElements(); });
    connect(&m_document, &TopologyDocument::changed, this, &Designer::display);
    connect(&m_document, &TopologyDocument::validityChanged, this, &Designer::validityChanged);
    setTopology(Topology{});
}

// A drop from the palette selects what it added (a host comes with a worker group: the host,
// the outermost), so the panel shows its fields at once, as a drawing program does.
void Designer::selectAdded(const QList<ElementRef>& before) {
    std::optional<ElementRef> added;
    for (const ElementRef& e : m_scene->elements())
        if (!before.contains(e) && (!added || e.kind < added->kind)) added = e;
    if (added) m_scene->selectElements({*added});
}

// The scene's items go after the panels; their last selection changes must not reach them.
Designer::~Designer() {
    m_scene->disconnect(this);
}

void Designer::setTopology(const Topology& topology, const QString& path) {
    m_document.reset(topology, path);
    m_view->setAutoFit(true);
    m_view->fit();
}

bool Designer::openFile(const QString& path, QString* error) {
    if (!m_document.open(path, error)) return false;
    m_view->setAutoFit(true);
    m_view->fit();
    return true;
}

bool Designer::saveFile(const QString& path, QString* error) {
    return m_document.save(path, error);
}

void Designer::display(const TopologyChange& change) {
    {
        const QScopedValueRollback redrawing(m_redrawing, true);
        m_scene->update(topology(), issues(), change);
        if (change.selection) m_scene->selectElements(*change.selection);
        else if (m_selectAfterEdit) m_scene->selectElements({*m_selectAfterEdit});
    }
    m_properties->show(topology(), m_scene->selectedElements());
    m_issueList->clear();
    for (const TopologyIssue& issue : issues()) {
        auto* item = new QListWidgetItem(QIcon(QStringLiteral(":/icons/error.svg")), issue.toString(), m_issueList);  // it blocks Start
        item->setData(Qt::UserRole, issue.path);
    }
    const TopologyIssues notes = topologyAdvice(topology());
    const bool dataMissing =
        std::any_of(notes.begin(), notes.end(), [](const TopologyIssue& n) { return n.path == QLatin1String("$.training.data_dir"); });
    if (issues().isEmpty())  // not "ready to run" when this machine lacks the data
        m_issueList->addItem(
            new QListWidgetItem(QIcon(QStringLiteral(":/icons/ok.svg")),
                                dataMissing ? tr("No problems in the topology; see the note below") : tr("No problems: ready to run")));
    for (const TopologyIssue& note : notes) {  // runs, but trains poorly or lacks its data here: said, not refused
        auto* item = new QListWidgetItem(QIcon(QStringLiteral(":/icons/info.svg")), note.toString(), m_issueList);
        item->setData(Qt::UserRole, note.path);
    }
    Q_EMIT topologyChanged();
}

void Designer::deleteSelection() {
    const QList<ElementRef> selected = m_scene->selectedElements();
    if (selected.isEmpty()) return;
    Topology t = topology();
    edits::remove(t, selected);
    apply(selected.size() == 1 ? tr("Delete %1").arg(describe(selected.first())) : tr("Delete %n items", nullptr, int(selected.size())), t);
}

// What the user calls an element, for the undo history: "server 1 of party2".
QString Designer::describe(const ElementRef& e) const {
    using K = ElementRef::Kind;
    const int position = edits::positionOf(topology(), e);
    switch (e.kind) {
        case K::Party: return tr("party %1").arg(e.party);
        case K::HostGroup: return tr("host %1 of %2").arg(e.host, e.party);
        case K::Scheduler: return tr("the scheduler of %1").arg(e.party);
        case K::Server: return tr("server %1 of %2").arg(position).arg(e.party);
        case K::MasterWorker: return tr("the master worker");
        case K::Workers: return tr("workers %1 of %2").arg(position).arg(e.party);
        case K::StateService: return tr("the state service");
        case K::None: break;
    }
    return e.key();
}

void Designer::copySelection() {
    Q_EMIT message(tr("Copied %n items", nullptr, m_document.copy(m_scene->selectedElements())));
}

void Designer::paste() {
    if (!m_document.hasClipboard()) return;
    const QList<ElementRef> selected = m_scene->selectedElements();
    Topology t = topology();
    const auto pasted = m_document.pasteInto(t, selected.isEmpty() ? QString() : selected.first().party);
    if (pasted.isEmpty()) return Q_EMIT message(tr("Nothing to paste: copy parties or worker groups"));
    QList<ElementRef> copies;
    for (const auto& [copy, original] : pasted) {
        copies << copy;
        if (copy.kind != ElementRef::Kind::Party) continue;  // a pasted party goes where it overlaps none
        const QPointF wanted = edits::partyPosition(t, copy.party);
        edits::setPartyPosition(t, copy.party,
                                m_scene->freeSpotNear(std::isnan(wanted.x()) ? QPointF(0, 0) : wanted, m_scene->partySize(original.party)));
    }
    apply(tr("Paste"), t);
    m_scene->selectElements(copies);
}

QMenu* Designer::contextMenu(QPointF scenePos) {
    auto* menu = new QMenu(m_view);
    if (!m_scene->selectedElements().isEmpty()) {
        QAction* edit = menu->addAction(tr("&Edit properties"), this, [this] { m_properties->focusFirstField(); });
        menu->setDefaultAction(edit);  // what a double click does
        menu->addSeparator();
    }
    QMenu* add = menu->addMenu(tr("&Add here"));
    for (const PaletteEntry& e : Palette::entries())
        add->addAction(QIcon(QStringLiteral(":/icons/%1.svg").arg(e.icon)), e.label, this,
                       [this, item = e.item, scenePos] { m_scene->dropPaletteItem(item, scenePos); });
    menu->addSeparator();
    menu->addActions(m_canvasActions);
    return menu;
}

void Designer::selectAll() {
    for (QGraphicsItem* i : m_scene->items())
        if (i->flags() & QGraphicsItem::ItemIsSelectable && !i->parentItem()) i->setSelected(true);
}

// A value typed in a property field is committed when the field loses the focus: before a save,
// a start or a question about unsaved changes, it does (Ctrl+S saved the old value, marked the
// topology saved, and the typed one was lost at quit).
void Designer::commitFieldEdit() {
    QWidget* field = QApplication::focusWidget();
    if (field && m_properties->isAncestorOf(field)) field->clearFocus();
}

}  // namespace hips
